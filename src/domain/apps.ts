import type { Clock } from '../clock.js';
import type { AppRecord, AppRepository, ClientRecord, Store } from '../storage/store.js';
import type { AppIdentityView, AppView } from '../shared/views.js';
import { appNameProblem, normalizedAppName } from '../shared/apps.js';
import { enforce } from './rule-violation.js';
import { redirectUriListProblemMessage } from './redirect-uris.js';
import { endUseByUsersNoLongerAllowed } from './app-access.js';
import { allowedScopesProblem, narrowsScopes, normalizedAllowedScopes } from './service-accounts.js';
import { constantTimeEqual, randomClientId, randomToken, sha256Hex } from './crypto.js';

/** Which app, as every view of one starts. */
export function appIdentityView(app: Pick<AppRecord, 'clientId' | 'name' | 'emoji'>): AppIdentityView {
  return { client_id: app.clientId, name: app.name, emoji: app.emoji };
}

/** The public view of an app (never its secret or secret hash). */
export function appView(app: AppRecord): AppView {
  return {
    ...appIdentityView(app),
    redirect_uris: app.redirectUris,
    created_at: new Date(app.createdAt).toISOString(),
    disabled: app.disabled,
    allow_refresh_tokens: app.allowRefreshTokens,
    allowed_groups: app.allowedGroups,
    post_logout_redirect_uris: app.postLogoutRedirectUris,
    backchannel_logout_uri: app.backchannelLogoutUri,
    backchannel_logout_last_attempt: app.backchannelLogoutLast && {
      at: new Date(app.backchannelLogoutLast.at).toISOString(),
      result: app.backchannelLogoutLast.result,
    },
    listed: app.listed ?? false,
    homepage_url: app.homepageUrl ?? null,
    cas_services: app.casServices ?? [],
    device_grant: app.deviceGrant ?? false,
    client_credentials: app.clientCredentials ?? false,
    allowed_scopes: app.allowedScopes ?? [],
  };
}

/** What an admin may change about an app (`PATCH /v1/admin/apps/:client_id`). */
export type AppChanges = Parameters<AppRepository['update']>[1];

/** What a new app starts without: no logout URIs, no back-channel delivery yet. */
export const NO_LOGOUT_URIS = {
  postLogoutRedirectUris: [],
  backchannelLogoutUri: null,
  backchannelLogoutLast: null,
} as const satisfies Partial<AppRecord>;

/**
 * A new app as an admin or an import describes it: its name, emoji and redirect URIs, and any of the settings
 * an admin may change later, but for its secret and the switches a new app starts with. Any app may have
 * `clientCredentials` (docs/interface.md#service-accounts-client-credentials): RFC 6749 §4.4 allows it for
 * confidential clients only, and every campus-sso app is one (it holds a secret and authenticates at the
 * token endpoint, docs/interface.md#token-endpoint).
 */
export type NewApp = Pick<AppRecord, 'name' | 'emoji' | 'redirectUris'> &
  Omit<AppChanges, 'name' | 'emoji' | 'redirectUris' | 'secretHash' | 'disabled' | 'allowRefreshTokens'>;

/** A client secret carries 32 random bytes (43 base64url characters; docs/interface.md#resources). */
export function newClientSecret(): string {
  return randomToken(32);
}

export class AppService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Every registered app (a school has tens, not thousands). */
  list(): Promise<AppRecord[]> {
    return this.store.apps.list();
  }

  /** Registers an app; answers it with its secret, which is never shown again. */
  async create(input: NewApp): Promise<{ app: AppRecord; clientSecret: string }> {
    // The app-name rule, whatever the path (API, command line, page); a route's check is a first filter.
    enforce(appNameProblem(input.name));
    // Every app redirects somewhere, unless it uses the device grant, CAS services or client_credentials
    // instead. The form of each URI is the caller's rule (the admin API and CLI check it; the Campux import
    // may keep a Campux-era one).
    const noneNeeded =
      input.deviceGrant === true || input.clientCredentials === true || (input.casServices ?? []).length > 0;
    if (input.redirectUris.length === 0 && !noneNeeded) enforce(redirectUriListProblemMessage([], false));
    enforce(allowedScopesProblem(input.allowedScopes ?? []));
    for (;;) {
      const clientSecret = newClientSecret();
      const app: AppRecord = {
        clientId: randomClientId(),
        name: normalizedAppName(input.name),
        emoji: input.emoji,
        secretHash: sha256Hex(clientSecret),
        redirectUris: [...input.redirectUris],
        createdAt: this.clock.now(),
        disabled: false,
        allowRefreshTokens: true,
        allowedGroups: [...(input.allowedGroups ?? [])],
        ...NO_LOGOUT_URIS,
        postLogoutRedirectUris: [...(input.postLogoutRedirectUris ?? [])],
        backchannelLogoutUri: input.backchannelLogoutUri ?? null,
        listed: input.listed ?? false,
        homepageUrl: input.homepageUrl ?? null,
        casServices: [...(input.casServices ?? [])],
        deviceGrant: input.deviceGrant ?? false,
        clientCredentials: input.clientCredentials ?? false,
        allowedScopes: normalizedAllowedScopes(input.allowedScopes ?? []),
      };
      // A client_id collision (62^16 space) is astronomically unlikely; draw again rather than fail.
      if (await this.store.apps.insert(app)) return { app, clientSecret };
    }
  }

  /**
   * An admin changes an app; answers false when there is no such app. Disabling it revokes everything it was
   * issued (codes, access and refresh tokens), and switching its refresh tokens off revokes those: for good,
   * so enabling or switching on again does not bring them back (docs/security.md). Narrowing its allowed
   * groups ends what the users outside them hold (src/domain/app-access.ts). Switching client_credentials off,
   * or taking a scope off allowed_scopes, revokes the app's service tokens (docs/security.md#service-accounts).
   * One transaction: the change and what it ends commit together.
   */
  async change(clientId: string, changes: AppChanges): Promise<boolean> {
    if (changes.name !== undefined) {
      enforce(appNameProblem(changes.name));
      changes = { ...changes, name: normalizedAppName(changes.name) };
    }
    if (changes.allowedScopes !== undefined) {
      enforce(allowedScopesProblem(changes.allowedScopes));
      changes = { ...changes, allowedScopes: normalizedAllowedScopes(changes.allowedScopes) };
    }
    const now = this.clock.now();
    const { allowedScopes } = changes;
    return this.store.transaction(async (tx) => {
      const before = allowedScopes === undefined ? undefined : await tx.apps.find(clientId);
      if (!(await tx.apps.update(clientId, changes))) return false;
      const narrowed = before !== undefined && narrowsScopes(before.allowedScopes ?? [], allowedScopes ?? []);
      if (changes.disabled === true || changes.clientCredentials === false || narrowed) {
        await tx.serviceTokens.revokeForApp(clientId);
      }
      if (changes.disabled === true) {
        // Codes first: then no new token can be issued, and the last step revokes any issued meanwhile.
        await tx.codes.voidForApp(clientId, now);
        await tx.tokens.revokeForApp(clientId);
        return true;
      }
      if (changes.allowRefreshTokens === false) await tx.tokens.revokeRefreshForApp(clientId);
      if (changes.allowedGroups !== undefined) {
        await endUseByUsersNoLongerAllowed(tx, clientId, changes.allowedGroups, now);
      }
      return true;
    });
  }

  /** Deletes the app with everything issued to it (codes, tokens, consents, logout records), in one commit. */
  delete(clientId: string): Promise<boolean> {
    return this.store.transaction((tx) => tx.apps.delete(clientId));
  }

  /**
   * A new secret for the app. The tokens it got for itself with the old one are revoked with it
   * (docs/security.md#service-accounts): a rotation is what an admin does when the secret may have leaked.
   */
  async rotateSecret(clientId: string): Promise<string | undefined> {
    const clientSecret = newClientSecret();
    const rotated = await this.store.transaction(async (tx) => {
      if (!(await tx.apps.update(clientId, { secretHash: sha256Hex(clientSecret) }))) return false;
      await tx.serviceTokens.revokeForApp(clientId);
      return true;
    });
    return rotated ? clientSecret : undefined;
  }

  /**
   * RFC 6749 §2.3.1: the app if it exists, is enabled, and `secret` is its secret (authenticatedClient).
   */
  async authenticate(clientId: string, secret: string): Promise<ClientRecord | undefined> {
    return authenticatedClient(await this.store.apps.findClient(clientId), secret);
  }
}

/**
 * RFC 6749 §2.3.1: `app` (as read for the client_id presented) if it exists, is enabled, and `secret` is its
 * secret, compared in constant time (on the SHA-256 digests, so neither length nor content leaks). The code
 * exchange reads the app with the code (`codes.findForExchange`) and checks it here.
 */
export function authenticatedClient(app: ClientRecord | undefined, secret: string): ClientRecord | undefined {
  const presented = sha256Hex(secret);
  if (!app) {
    constantTimeEqual(presented, presented);
    return undefined;
  }
  if (!constantTimeEqual(presented, app.secretHash)) return undefined;
  return app.disabled ? undefined : app;
}

/**
 * Where an app's launcher tile leads: its homepage when an admin set one, else the origin of its first
 * redirect URI (the app's own site); undefined when it has neither.
 */
export function launcherUrl(app: AppRecord): string | undefined {
  if (app.homepageUrl) return app.homepageUrl;
  const first = app.redirectUris[0];
  if (first === undefined) return undefined;
  try {
    return `${new URL(first).origin}/`;
  } catch {
    return undefined;
  }
}

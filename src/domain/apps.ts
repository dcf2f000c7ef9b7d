import type { Clock } from '../clock.js';
import type { AppRecord, Store } from '../storage/store.js';
import type { AppView } from '../shared/views.js';
import { constantTimeEqual, randomClientId, randomToken, sha256Hex } from './crypto.js';

/** The public view of an app (never its secret or secret hash). */
export function appView(app: AppRecord): AppView {
  return {
    client_id: app.clientId,
    name: app.name,
    emoji: app.emoji,
    redirect_uris: app.redirectUris,
    created_at: new Date(app.createdAt).toISOString(),
    disabled: app.disabled,
    allow_refresh_tokens: app.allowRefreshTokens,
    listed: app.listed ?? false,
    homepage_url: app.homepageUrl ?? null,
  };
}

export interface NewApp {
  readonly name: string;
  readonly emoji: string;
  readonly redirectUris: readonly string[];
  readonly listed?: boolean;
  readonly homepageUrl?: string | null;
}

/** A client secret carries 32 random bytes (43 base64url characters; docs/interface.md#resources). */
export function newClientSecret(): string {
  return randomToken(32);
}

export class AppService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Registers an app; answers it with its secret, which is never shown again. */
  async create(input: NewApp): Promise<{ app: AppRecord; clientSecret: string }> {
    for (;;) {
      const clientSecret = newClientSecret();
      const app: AppRecord = {
        clientId: randomClientId(),
        name: input.name,
        emoji: input.emoji,
        secretHash: sha256Hex(clientSecret),
        redirectUris: [...input.redirectUris],
        createdAt: this.clock.now(),
        disabled: false,
        allowRefreshTokens: true,
        listed: input.listed ?? false,
        homepageUrl: input.homepageUrl ?? null,
      };
      // A client_id collision (62^16 space) is astronomically unlikely; draw again rather than fail.
      if (await this.store.apps.insert(app)) return { app, clientSecret };
    }
  }

  async rotateSecret(clientId: string): Promise<string | undefined> {
    const clientSecret = newClientSecret();
    return (await this.store.apps.update(clientId, { secretHash: sha256Hex(clientSecret) }))
      ? clientSecret
      : undefined;
  }

  /**
   * RFC 6749 §2.3.1: the app if it exists, is enabled, and `secret` is its secret, compared in constant
   * time (on the SHA-256 digests, so neither length nor content leaks).
   */
  async authenticate(clientId: string, secret: string): Promise<AppRecord | undefined> {
    const app = await this.store.apps.find(clientId);
    const presented = sha256Hex(secret);
    if (!app) {
      constantTimeEqual(presented, presented);
      return undefined;
    }
    if (!constantTimeEqual(presented, app.secretHash)) return undefined;
    return app.disabled ? undefined : app;
  }
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

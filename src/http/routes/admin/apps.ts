import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { type AppChanges, appView } from '../../../domain/apps.js';
import { appTarget } from '../../../domain/audit.js';
import type { AuditAction } from '../../../shared/people.js';
import { isSingleEmoji } from '../../../domain/emoji.js';
import {
  backchannelLogoutUriProblem,
  postLogoutRedirectUrisProblem,
  redirectUriProblem,
  redirectUrisProblem,
} from '../../../domain/redirect-uris.js';
import { casServicesProblem } from '../../../cas/services.js';
import type { AppView } from '../../../shared/views.js';
import type { AppRecord } from '../../../storage/store.js';
import { appNameProblem, normalizedAppName } from '../../../shared/apps.js';
import { badRequest, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { GroupListSchema, checkedGroups } from './people.js';
import { currentAdmin } from './require-admin.js';
import { ClientIdParams, rejectBody } from './schemas.js';
import { AppAnswers, AppsAnswers, DoneAnswers, NewAppAnswers, RotatedSecretAnswers } from './answers.js';

/** The app-name rule (src/shared/apps.ts); AppService enforces it again, whatever the path. */
function checkedName(name: string): string {
  const problem = appNameProblem(name);
  if (problem) throw badRequest(problem);
  return normalizedAppName(name);
}

function checkedEmoji(emoji: string): string {
  if (!isSingleEmoji(emoji)) throw badRequest('emoji must be exactly one emoji');
  return emoji;
}

/** A launcher tile's address follows the redirect URI rules: https (http only for loopback), no fragment. */
function checkedHomepageUrl(url: string | null): string | null {
  if (url === null || url.trim() === '') return null;
  const problem = redirectUriProblem(url.trim());
  if (problem) throw badRequest(`homepage_url ${problem}`);
  return url.trim();
}

/**
 * An app that registers CAS services (docs/interface.md#cas-protocol) or uses the device grant
 * (docs/interface.md#device-authorization-grant) may register no redirect URI.
 */
function checkedRedirectUris(uris: readonly string[], noneNeeded = false): string[] {
  const problem = redirectUrisProblem(uris, noneNeeded);
  if (problem) throw badRequest(problem);
  return [...uris];
}

function checkedCasServices(urls: readonly string[]): string[] {
  const problem = casServicesProblem(urls);
  if (problem) throw badRequest(problem);
  return [...urls];
}

function checkedPostLogoutRedirectUris(uris: readonly string[]): string[] {
  const problem = postLogoutRedirectUrisProblem(uris);
  if (problem) throw badRequest(problem);
  return [...uris];
}

/** An empty string or null removes it. */
function checkedBackchannelLogoutUri(uri: string | null): string | null {
  if (uri === null || uri === '') return null;
  const problem = backchannelLogoutUriProblem(uri);
  if (problem) throw badRequest(problem);
  return uri;
}

/** Newest first; apps created in the same millisecond keep the store's order. */
function newestFirst(apps: readonly AppRecord[]): AppRecord[] {
  return [...apps].sort((a, b) => b.createdAt - a.createdAt);
}

/** docs/interface.md#sessions-and-sign-out: where the app's users go after signing out, and its back channel. */
const LOGOUT_FIELDS = {
  post_logout_redirect_uris: Type.Optional(Type.Array(Type.String())),
  backchannel_logout_uri: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

/** The optional settings an app may be registered with and later changed: access groups, sign-out, launcher. */
const APP_SETTINGS = {
  allowed_groups: Type.Optional(GroupListSchema),
  ...LOGOUT_FIELDS,
  listed: Type.Optional(Type.Boolean()),
  homepage_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  // docs/interface.md#cas-protocol: the app's CAS service URLs.
  cas_services: Type.Optional(Type.Array(Type.String())),
  device_grant: Type.Optional(Type.Boolean()),
};

const NewAppBody = Type.Object(
  {
    name: Type.String(),
    emoji: Type.String(),
    // Optional only for an app that registers CAS services or uses the device grant instead.
    redirect_uris: Type.Optional(Type.Array(Type.String())),
    ...APP_SETTINGS,
  },
  { additionalProperties: false },
);

const AppChangesBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    emoji: Type.Optional(Type.String()),
    redirect_uris: Type.Optional(Type.Array(Type.String())),
    disabled: Type.Optional(Type.Boolean()),
    allow_refresh_tokens: Type.Optional(Type.Boolean()),
    ...APP_SETTINGS,
  },
  { additionalProperties: false },
);

/** `/v1/admin/apps…`: the OAuth 2 applications panel of the management page (docs/interface.md#admin-api). */
export const adminAppRoutes: RoutePlugin = async (app, { ctx }) => {
  const auditApp = (
    request: FastifyRequest,
    action: AuditAction,
    clientId: string,
    detail?: Record<string, unknown>,
  ): Promise<void> =>
    ctx.audit.record({
      action,
      actorUin: currentAdmin(request).uin,
      target: appTarget(clientId),
      ...(detail && { detail }),
      request,
    });

  async function findApp(clientId: string): Promise<AppRecord> {
    const found = await ctx.store.apps.find(clientId);
    if (!found) throw notFound(`no app with client_id ${clientId}`);
    return found;
  }

  /** The admin's view: the app, with its back-channel logouts still queued. */
  async function adminAppView(found: AppRecord, pending?: Map<string, number>): Promise<AppView> {
    const queued = pending ?? (await ctx.store.logouts.pendingByApp());
    return { ...appView(found), backchannel_logout_pending: queued.get(found.clientId) ?? 0 };
  }

  app.get('/v1/admin/apps', { schema: { response: AppsAnswers } }, async () => {
    const [apps, pending] = await Promise.all([ctx.store.apps.list(), ctx.store.logouts.pendingByApp()]);
    return ok({ apps: await Promise.all(newestFirst(apps).map((a) => adminAppView(a, pending))) });
  });

  app.post(
    '/v1/admin/apps',
    { schema: { body: NewAppBody, response: NewAppAnswers }, config: { csrf: true } },
    async (request) => {
      const {
        name,
        emoji,
        redirect_uris,
        allowed_groups,
        post_logout_redirect_uris,
        backchannel_logout_uri,
        listed,
        homepage_url,
        cas_services,
        device_grant,
      } = request.body;
      const casServices = checkedCasServices(cas_services ?? []);
      const created = await ctx.apps.create({
        name: checkedName(name),
        emoji: checkedEmoji(emoji),
        redirectUris: checkedRedirectUris(
          redirect_uris ?? [],
          casServices.length > 0 || device_grant === true,
        ),
        casServices,
        deviceGrant: device_grant ?? false,
        allowedGroups: checkedGroups(allowed_groups ?? [], 'allowed_groups'),
        postLogoutRedirectUris: checkedPostLogoutRedirectUris(post_logout_redirect_uris ?? []),
        backchannelLogoutUri: checkedBackchannelLogoutUri(backchannel_logout_uri ?? null),
        listed: listed ?? false,
        homepageUrl: checkedHomepageUrl(homepage_url ?? null),
      });
      await auditApp(request, 'app_created', created.app.clientId, { name: created.app.name });
      // docs/interface.md#resources: the secret is shown in full this once; only its hash is stored.
      return ok({ app: await adminAppView(created.app), client_secret: created.clientSecret });
    },
  );

  app.get(
    '/v1/admin/apps/:client_id',
    { schema: { params: ClientIdParams, response: AppAnswers } },
    async (request) => {
      return ok({ app: await adminAppView(await findApp(request.params.client_id)) });
    },
  );

  app.patch(
    '/v1/admin/apps/:client_id',
    {
      schema: { params: ClientIdParams, body: AppChangesBody, response: AppAnswers },
      config: { csrf: true },
    },
    async (request) => {
      const { client_id: clientId } = request.params;
      const body = request.body;
      if (
        body.redirect_uris !== undefined ||
        body.device_grant === false ||
        body.cas_services !== undefined
      ) {
        // One rule: no redirect URI only for an app with CAS services or the device grant.
        const current = await findApp(clientId);
        const deviceGrant = body.device_grant ?? current.deviceGrant === true;
        const casServices = body.cas_services ?? current.casServices ?? [];
        checkedRedirectUris(
          body.redirect_uris ?? current.redirectUris,
          deviceGrant || casServices.length > 0,
        );
      }
      const changes: AppChanges = {
        ...(body.name !== undefined && { name: checkedName(body.name) }),
        ...(body.emoji !== undefined && { emoji: checkedEmoji(body.emoji) }),
        ...(body.redirect_uris !== undefined && { redirectUris: [...body.redirect_uris] }),
        ...(body.cas_services !== undefined && { casServices: checkedCasServices(body.cas_services) }),
        ...(body.device_grant !== undefined && { deviceGrant: body.device_grant }),
        ...(body.disabled !== undefined && { disabled: body.disabled }),
        ...(body.allow_refresh_tokens !== undefined && { allowRefreshTokens: body.allow_refresh_tokens }),
        ...(body.allowed_groups !== undefined && {
          allowedGroups: checkedGroups(body.allowed_groups, 'allowed_groups'),
        }),
        ...(body.post_logout_redirect_uris !== undefined && {
          postLogoutRedirectUris: checkedPostLogoutRedirectUris(body.post_logout_redirect_uris),
        }),
        ...(body.backchannel_logout_uri !== undefined && {
          backchannelLogoutUri: checkedBackchannelLogoutUri(body.backchannel_logout_uri),
        }),

        ...(body.listed !== undefined && { listed: body.listed }),
        ...(body.homepage_url !== undefined && { homepageUrl: checkedHomepageUrl(body.homepage_url) }),
      };
      if (Object.keys(changes).length === 0) {
        throw badRequest(
          'send at least one of name, emoji, redirect_uris, disabled, allow_refresh_tokens, allowed_groups, ' +
            'post_logout_redirect_uris, backchannel_logout_uri, listed, homepage_url, cas_services, device_grant',
        );
      }
      if (!(await ctx.apps.change(clientId, changes))) throw notFound(`no app with client_id ${clientId}`);
      await auditApp(request, 'app_updated', clientId, { fields: Object.keys(body).sort() });
      return ok({ app: await adminAppView(await findApp(clientId)) });
    },
  );

  app.post(
    '/v1/admin/apps/:client_id/rotate-secret',
    { schema: { params: ClientIdParams, response: RotatedSecretAnswers }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const { client_id: clientId } = request.params;
      const clientSecret = await ctx.apps.rotateSecret(clientId);
      if (clientSecret === undefined) throw notFound(`no app with client_id ${clientId}`);
      await auditApp(request, 'app_secret_rotated', clientId);
      return ok({ client_id: clientId, client_secret: clientSecret });
    },
  );

  app.delete(
    '/v1/admin/apps/:client_id',
    { schema: { params: ClientIdParams, response: DoneAnswers }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const { client_id: clientId } = request.params;
      // The store deletes the app's codes, tokens and consents with it (docs/interface.md#legacy-user-information: its tokens stop working).
      if (!(await ctx.apps.delete(clientId))) throw notFound(`no app with client_id ${clientId}`);
      await auditApp(request, 'app_deleted', clientId);
      return ok({});
    },
  );
};

import { Type } from '@sinclair/typebox';
import { type AppChanges, appView } from '../../../domain/apps.js';
import { isSingleEmoji } from '../../../domain/emoji.js';
import { redirectUrisProblem } from '../../../domain/redirect-uris.js';
import type { AppRecord } from '../../../storage/store.js';
import { badRequest, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { ClientIdParams, rejectBody } from './schemas.js';

/**
 * docs/interface.md#application-oauth-client: an app's name is 1–64 characters (after trimming; counted in
 * code points, as JSON Schema does).
 */
const MAX_NAME_LENGTH = 64;

function checkedName(name: string): string {
  const trimmed = name.trim();
  const length = [...trimmed].length;
  if (length === 0) throw badRequest('name must not be empty');
  if (length > MAX_NAME_LENGTH) throw badRequest(`name must be at most ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

function checkedEmoji(emoji: string): string {
  if (!isSingleEmoji(emoji)) throw badRequest('emoji must be exactly one emoji');
  return emoji;
}

function checkedRedirectUris(uris: readonly string[]): string[] {
  const problem = redirectUrisProblem(uris);
  if (problem) throw badRequest(problem);
  return [...uris];
}

/** Newest first; apps created in the same millisecond keep the store's order. */
function newestFirst(apps: readonly AppRecord[]): AppRecord[] {
  return [...apps].sort((a, b) => b.createdAt - a.createdAt);
}

const NewAppBody = Type.Object(
  {
    name: Type.String(),
    emoji: Type.String(),
    redirect_uris: Type.Array(Type.String()),
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
  },
  { additionalProperties: false },
);

/** `/v1/admin/apps…`: the OAuth 2 applications panel of the management page (docs/interface.md#admin-api). */
export const adminAppRoutes: RoutePlugin = async (app, { ctx }) => {
  async function findApp(clientId: string): Promise<AppRecord> {
    const found = await ctx.store.apps.find(clientId);
    if (!found) throw notFound(`no app with client_id ${clientId}`);
    return found;
  }

  app.get('/v1/admin/apps', async () => {
    const apps = await ctx.store.apps.list();
    return ok({ apps: newestFirst(apps).map(appView) });
  });

  app.post('/v1/admin/apps', { schema: { body: NewAppBody }, config: { csrf: true } }, async (request) => {
    const { name, emoji, redirect_uris } = request.body;
    const created = await ctx.apps.create({
      name: checkedName(name),
      emoji: checkedEmoji(emoji),
      redirectUris: checkedRedirectUris(redirect_uris),
    });
    // docs/interface.md#admin-api: the secret is shown in full this once; only its hash is stored.
    return ok({ app: appView(created.app), client_secret: created.clientSecret });
  });

  app.get('/v1/admin/apps/:client_id', { schema: { params: ClientIdParams } }, async (request) => {
    return ok({ app: appView(await findApp(request.params.client_id)) });
  });

  app.patch(
    '/v1/admin/apps/:client_id',
    { schema: { params: ClientIdParams, body: AppChangesBody }, config: { csrf: true } },
    async (request) => {
      const { client_id: clientId } = request.params;
      const body = request.body;
      const changes: AppChanges = {
        ...(body.name !== undefined && { name: checkedName(body.name) }),
        ...(body.emoji !== undefined && { emoji: checkedEmoji(body.emoji) }),
        ...(body.redirect_uris !== undefined && { redirectUris: checkedRedirectUris(body.redirect_uris) }),
        ...(body.disabled !== undefined && { disabled: body.disabled }),
        ...(body.allow_refresh_tokens !== undefined && { allowRefreshTokens: body.allow_refresh_tokens }),
      };
      if (Object.keys(changes).length === 0) {
        throw badRequest('send at least one of name, emoji, redirect_uris, disabled, allow_refresh_tokens');
      }
      if (!(await ctx.apps.change(clientId, changes))) throw notFound(`no app with client_id ${clientId}`);
      return ok({ app: appView(await findApp(clientId)) });
    },
  );

  app.post(
    '/v1/admin/apps/:client_id/rotate-secret',
    { schema: { params: ClientIdParams }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const { client_id: clientId } = request.params;
      const clientSecret = await ctx.apps.rotateSecret(clientId);
      if (clientSecret === undefined) throw notFound(`no app with client_id ${clientId}`);
      return ok({ client_id: clientId, client_secret: clientSecret });
    },
  );

  app.delete(
    '/v1/admin/apps/:client_id',
    { schema: { params: ClientIdParams }, config: { csrf: true } },
    async (request) => {
      rejectBody(request);
      const { client_id: clientId } = request.params;
      // The store deletes the app's codes, tokens and consents with it
      // (docs/interface.md#access-token-and-refresh-token).
      if (!(await ctx.store.apps.delete(clientId))) throw notFound(`no app with client_id ${clientId}`);
      return ok({});
    },
  );
};

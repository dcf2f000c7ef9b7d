import { Type } from '@sinclair/typebox';
import { notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { ClientIdParam } from '../../schemas.js';
import { requireSignedIn } from '../../session-cookie.js';

/** SPEC §7: users see and revoke the apps they authorized (#/account). */
export const consentRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/account/consents', async (request) => {
    const { user } = await requireSignedIn(ctx, request);
    const consents = await ctx.store.consents.listForUser(user.uin);
    return ok({
      consents: consents.map((c) => ({
        client_id: c.clientId,
        name: c.name,
        emoji: c.emoji,
        scope: c.scope,
        granted_at: new Date(c.grantedAt).toISOString(),
      })),
    });
  });

  app.delete(
    '/v1/account/consents/:client_id',
    { schema: { params: Type.Object({ client_id: ClientIdParam }) }, config: { csrf: true } },
    async (request) => {
      const { user } = await requireSignedIn(ctx, request);
      const clientId = request.params.client_id;
      const existed = await ctx.store.consents.delete(user.uin, clientId);
      // Withdrawing consent also ends what it granted: the app's tokens for this user stop working.
      await ctx.store.tokens.revokeForUserAndApp(user.uin, clientId);
      if (!existed) throw notFound('you have not authorized this app');
      return ok({});
    },
  );
};

import { Type } from '@sinclair/typebox';
import { appTarget } from '../../../domain/audit.js';
import { consentView } from '../../../domain/consents.js';
import { notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { ClientIdParam } from '../../schemas.js';
import { requireSignedIn } from '../../session-cookie.js';
import { EmptyEnvelope, EnvelopeOf } from '../../response-schemas.js';
import { ConsentViewSchema } from '../../view-schemas.js';

const ConsentsAnswers = { 200: EnvelopeOf({ consents: Type.Array(ConsentViewSchema) }) };

/** Users see and revoke the apps they authorized (#/account; docs/interface.md#browser-session-api). */
export const consentRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/account/consents', { schema: { response: ConsentsAnswers } }, async (request) => {
    const { user } = await requireSignedIn(ctx, request);
    const consents = await ctx.consents.listForUser(user.uin);
    return ok({ consents: consents.map(consentView) });
  });

  app.delete(
    '/v1/account/consents/:client_id',
    {
      schema: { params: Type.Object({ client_id: ClientIdParam }), response: { 200: EmptyEnvelope } },
      config: { csrf: true },
    },
    async (request) => {
      const { user } = await requireSignedIn(ctx, request);
      const clientId = request.params.client_id;
      if (!(await ctx.consents.withdraw(user.uin, clientId))) {
        throw notFound('you have not authorized this app');
      }
      await ctx.audit.record({
        action: 'consent_withdrawn',
        actorUin: user.uin,
        target: appTarget(clientId),
        request,
      });
      return ok({});
    },
  );
};

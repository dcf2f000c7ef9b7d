import { Type } from '@sinclair/typebox';
import { decideAuthorization } from '../../../oauth/authorization/authorize.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import { forbidden } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireSignedIn } from '../../session-cookie.js';

/**
 * The authorization request's parameters as the page passes them through. RFC 6749 §3.1: unrecognized
 * parameters MUST be ignored, so other fields are allowed; known ones must be strings, sent once.
 */
const AuthorizeBody = Type.Object(
  {
    client_id: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    response_type: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String({ maxLength: 1024 })),
    nonce: Type.Optional(Type.String({ maxLength: 1024 })),
    code_challenge: Type.Optional(Type.String()),
    code_challenge_method: Type.Optional(Type.String()),
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    // Set by the page when it answers for the user from a remembered consent, without a click.
    remembered: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

/**
 * SPEC §2: `GET /v1/oauth2/authorize` (the metadata's authorization_endpoint) hands the browser to the page;
 * `POST /v1/oauth2/authorize` is the page's call that turns the user's decision into the redirect URL.
 */
export const authorizeRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/oauth2/authorize', async (request, reply) => {
    const queryStart = request.url.indexOf('?');
    // The same parameters, byte for byte, in the page's fragment query (SPEC §2). No CORS headers (SPEC §9).
    const query = queryStart === -1 ? '' : request.url.slice(queryStart);
    return reply.header('cache-control', 'no-store').redirect(`${ctx.config.baseUrl}/#/auth${query}`, 302);
  });

  app.post(
    '/v1/oauth2/authorize',
    { schema: { body: AuthorizeBody }, config: { csrf: true } },
    async (request, reply) => {
      const { session } = await requireSignedIn(ctx, request);
      const { decision, remembered, ...params } = request.body;
      // docs/interface.md#sessions-and-sign-out: on a shared computer the user confirms each app; a remembered
      // consent is never used silently.
      if (remembered === true && decision === 'allow' && session.shared) {
        throw forbidden('on a shared computer, confirm this app first');
      }
      const redirectTo = await decideAuthorization(ctx, session, params, decision);
      // The URL carries a fresh code: never cache it (RFC 6749 §10.5 keeps codes confidential).
      reply.headers(NO_STORE_HEADERS);
      return ok({ redirect_to: redirectTo });
    },
  );
};

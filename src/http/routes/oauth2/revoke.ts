import { Type } from '@sinclair/typebox';
import { authenticateClient } from '../../../oauth/client-authentication.js';
import { present } from '../../../oauth/parameters.js';
import { revokeToken, tokenTypeHint } from '../../../oauth/revocation.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireFormBody } from './form-body.js';

const RevokeBody = Type.Object(
  {
    token: Type.Optional(Type.String()),
    token_type_hint: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** SPEC §6: RFC 7009 token revocation, client-authenticated. */
export const revokeRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/revoke',
    { schema: { body: RevokeBody }, preValidation: requireFormBody, config: { errorStyle: 'oauth' } },
    async (request, reply) => {
      const body = request.body;
      // RFC 7009 §2.1: "The authorization server first validates the client credentials".
      const client = await authenticateClient(ctx, {
        authorization: request.headers.authorization,
        clientId: body.client_id,
        clientSecret: body.client_secret,
      });
      await revokeToken(ctx, client, present(body.token), tokenTypeHint(present(body.token_type_hint)));
      // RFC 7009 §2.2: 200, whether or not the token was known; the body is ignored.
      return reply.code(200).headers(NO_STORE_HEADERS).send();
    },
  );
};

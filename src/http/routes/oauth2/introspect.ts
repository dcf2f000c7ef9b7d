import { Type } from '@sinclair/typebox';
import { authenticateClient } from '../../../oauth/client-authentication.js';
import { introspectToken } from '../../../oauth/introspection.js';
import { present } from '../../../oauth/parameters.js';
import { tokenTypeHint } from '../../../oauth/revocation.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireFormBody } from './form-body.js';

const IntrospectBody = Type.Object(
  {
    token: Type.Optional(Type.String()),
    token_type_hint: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** SPEC §6: RFC 7662 token introspection, client-authenticated (RFC 7662 §2.1). */
export const introspectRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/introspect',
    { schema: { body: IntrospectBody }, preValidation: requireFormBody, config: { errorStyle: 'oauth' } },
    async (request, reply) => {
      const body = request.body;
      const client = await authenticateClient(ctx, {
        authorization: request.headers.authorization,
        clientId: body.client_id,
        clientSecret: body.client_secret,
      });
      const answer = await introspectToken(
        ctx,
        client,
        present(body.token),
        tokenTypeHint(present(body.token_type_hint)),
      );
      reply.headers(NO_STORE_HEADERS);
      return answer;
    },
  );
};

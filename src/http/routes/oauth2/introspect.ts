import { Type } from '@sinclair/typebox';
import { introspectToken } from '../../../oauth/introspection.js';
import { present } from '../../../oauth/parameters.js';
import { tokenTypeHint } from '../../../oauth/revocation.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { TokenReferenceBody, asClient, clientFormRoute } from './form-body.js';

/** RFC 7662 §2.2: `active`, and for an active token what it is (a service token has no `sub`). */
const IntrospectionAnswer = Type.Object(
  {
    active: Type.Boolean(),
    scope: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
    exp: Type.Optional(Type.Integer()),
    iat: Type.Optional(Type.Integer()),
    sub: Type.Optional(Type.String()),
    uin: Type.Optional(Type.Integer()),
    user_group: Type.Optional(Type.String()),
  },
  { additionalProperties: false, description: 'What the token is (RFC 7662 §2.2)' },
);

/**
 * docs/interface.md#revocation-and-introspection: RFC 7662 token introspection, client-authenticated
 * (RFC 7662 §2.1).
 */
export const introspectRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/introspect',
    clientFormRoute(TokenReferenceBody, { 200: IntrospectionAnswer }),
    // RFC 7662 §2.1: the endpoint "MUST also require some form of authorization"; here, client authentication.
    asClient(ctx, async (client, { body }, reply) => {
      const hint = tokenTypeHint(present(body.token_type_hint));
      const answer = await introspectToken(ctx, client, present(body.token), hint);
      reply.headers(NO_STORE_HEADERS);
      return answer;
    }),
  );
};

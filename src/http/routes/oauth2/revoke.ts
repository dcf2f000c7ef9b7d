import { present } from '../../../oauth/parameters.js';
import { revokeToken, tokenTypeHint } from '../../../oauth/revocation.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import { NoBody } from '../../response-schemas.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { TokenReferenceBody, asClient, clientFormRoute } from './form-body.js';

/** RFC 7009 §2.2: 200 and no body, whether or not the token was known. */
const RevokedAnswer = NoBody('Revoked, or was never valid (RFC 7009 §2.2)');

/** docs/interface.md#revocation-and-introspection: RFC 7009 token revocation, client-authenticated. */
export const revokeRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/revoke',
    clientFormRoute(TokenReferenceBody, { 200: RevokedAnswer }),
    // RFC 7009 §2.1: "The authorization server first validates the client credentials".
    asClient(ctx, async (client, { body }, reply) => {
      await revokeToken(ctx, client, present(body.token), tokenTypeHint(present(body.token_type_hint)));
      // RFC 7009 §2.2: 200, whether or not the token was known; the body is ignored.
      return reply.code(200).headers(NO_STORE_HEADERS).send();
    }),
  );
};

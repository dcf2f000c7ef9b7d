import { Type } from '@sinclair/typebox';
import { InvalidRequest } from '../../../oauth/errors.js';
import { authenticateAndExchangeCode } from '../../../oauth/grants/authorization-code.js';
import { present } from '../../../oauth/parameters.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import { ok } from '../../responses.js';
import { EnvelopeOf } from '../../response-schemas.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';

/**
 * docs/interface.md#legacy-token-endpoint: `{"client_id","client_secret","code"}`, all strings (checked
 * below, so the message names the field).
 */
const LegacyTokenBody = Type.Object(
  optional(Type.String(), 'client_id', 'client_secret', 'code', 'code_verifier'),
  { additionalProperties: true },
);

/** docs/interface.md#legacy-token-endpoint: `{"code":0,"msg":"ok","data":{"access_token":"…"}}`. */
const LegacyTokenAnswer = EnvelopeOf({ access_token: Type.String() }, 'The access token, in the envelope');

/**
 * docs/interface.md#legacy-token-endpoint: the legacy token exchange of the previous system (Campux), kept
 * exactly: JSON in, the envelope out, its error codes (1 malformed, 2 client or grant) with a real HTTP
 * status. The grant rules are the standard endpoint's (`authenticateAndExchangeCode`), minus redirect_uri,
 * which legacy clients never sent.
 */
export const legacyGetAccessTokenRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/get-access-token',
    {
      schema: { body: LegacyTokenBody, response: { 200: LegacyTokenAnswer } },
      config: { errorStyle: 'legacy' },
    },
    async (request, reply) => {
      const body = request.body;
      // docs/interface.md#legacy-token-endpoint: all three are required.
      if (!body.client_id) throw new InvalidRequest('client_id is required');
      if (!body.client_secret) throw new InvalidRequest('client_secret is required');
      if (!body.code) throw new InvalidRequest('code is required');

      // RFC 6749 §2.3.1: client_secret_post, compared in constant time with the app read with the code.
      const credentials = {
        clientId: body.client_id,
        clientSecret: body.client_secret,
        usedBasicAuth: false,
      };
      const issued = await authenticateAndExchangeCode(
        ctx,
        credentials,
        { code: body.code, redirectUri: undefined, codeVerifier: present(body.code_verifier) },
        { checkRedirectUri: false, accessTokenOnly: true },
      );
      // RFC 6749 §5.1: token responses must not be cached.
      reply.headers(NO_STORE_HEADERS);
      return ok({ access_token: issued.accessToken });
    },
  );
};

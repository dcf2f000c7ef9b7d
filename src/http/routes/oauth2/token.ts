import type { ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import { InvalidRequest, UnsupportedGrantType } from '../../../oauth/errors.js';
import { authenticateAndExchangeCode } from '../../../oauth/grants/authorization-code.js';
import { authenticatePresented } from '../../../oauth/client-authentication.js';
import {
  CLIENT_CREDENTIALS_GRANT_TYPE,
  grantClientCredentials,
} from '../../../oauth/grants/client-credentials.js';
import { DEVICE_CODE_GRANT_TYPE } from '../../../oauth/device/device-authorization.js';
import { exchangeDeviceCode } from '../../../oauth/grants/device-code.js';
import { exchangeRefreshToken } from '../../../oauth/grants/refresh-token.js';
import { present } from '../../../oauth/parameters.js';
import { type IssuedTokens, NO_STORE_HEADERS, tokenResponse } from '../../../oauth/tokens.js';
import { undeliveredExchanges } from '../../../oauth/undelivered-exchanges.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';
import { CLIENT_CREDENTIAL_FIELDS, clientFormRoute, presentedFormClient } from './form-body.js';

/**
 * RFC 6749 §3.2: known parameters are strings sent once (a repeated one arrives as an array and fails here,
 * §3.1); unrecognized parameters MUST be ignored.
 */
const TokenBody = Type.Object(
  {
    ...optional(
      Type.String(),
      'grant_type',
      'code',
      'redirect_uri',
      'code_verifier',
      'refresh_token',
      'scope',
      'device_code',
    ),
    ...CLIENT_CREDENTIAL_FIELDS,
  },
  { additionalProperties: true },
);

/** RFC 6749 §5.1 (and OIDC Core §3.1.3.3 `id_token`): never enveloped. */
const TokenAnswer = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1 }),
    refresh_token: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    id_token: Type.Optional(Type.String()),
  },
  { additionalProperties: false, description: 'The tokens (RFC 6749 §5.1)' },
);

/**
 * docs/interface.md#token-endpoint: the standard token endpoint (RFC 6749 §3.2),
 * answering RFC 6749 §5.1 / §5.2 JSON.
 */
export const tokenRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post('/v1/oauth2/token', clientFormRoute(TokenBody, { 200: TokenAnswer }), async (request, reply) => {
    const body = request.body;
    // RFC 6749 §3.2.1: confidential clients authenticate at the token endpoint; the code exchange checks
    // the credentials against the app it reads with the code (authenticateAndExchangeCode).
    const credentials = presentedFormClient(request, body);

    const grantType = present(body.grant_type);
    let issued: IssuedTokens;
    /** The key of the code an exchange redeemed, until its answer is known to be sent. */
    let codeKey: string | undefined;
    if (grantType === 'authorization_code') {
      const exchanged = await authenticateAndExchangeCode(
        ctx,
        credentials,
        {
          code: present(body.code),
          redirectUri: present(body.redirect_uri),
          codeVerifier: present(body.code_verifier),
        },
        { checkRedirectUri: true, accessTokenOnly: false },
      );
      issued = exchanged;
      codeKey = exchanged.codeHash;
    } else {
      const client = await authenticatePresented(ctx, credentials);
      // RFC 6749 §4.1.3: grant_type is REQUIRED.
      if (grantType === undefined) {
        throw new InvalidRequest('grant_type is required');
      } else if (grantType === 'refresh_token') {
        issued = await exchangeRefreshToken(ctx, client, {
          refreshToken: present(body.refresh_token),
          scope: present(body.scope),
        });
      } else if (grantType === DEVICE_CODE_GRANT_TYPE) {
        issued = await exchangeDeviceCode(ctx, client, present(body.device_code));
      } else if (grantType === CLIENT_CREDENTIALS_GRANT_TYPE) {
        // RFC 6749 §4.4: a token for the client itself, without a user; RFC 6749 §5.1: never cached.
        const answer = await grantClientCredentials(ctx, client, present(body.scope));
        reply.headers(NO_STORE_HEADERS);
        return answer;
      } else {
        // RFC 6749 §5.2 unsupported_grant_type.
        throw new UnsupportedGrantType(`grant_type '${grantType}' is not supported`);
      }
    }

    // RFC 6749 §5.1: token responses must not be cached.
    reply.headers(NO_STORE_HEADERS);
    if (codeKey === undefined) return tokenResponse(ctx, issued);
    // The code is used now: if its answer does not reach the client, the client's retry finds it used.
    undeliveredExchanges(ctx).answering(codeKey, notDelivered(reply.raw), ctx.clock);
    try {
      return await tokenResponse(ctx, issued);
    } catch (error) {
      undeliveredExchanges(ctx).record(codeKey, ctx.clock.now());
      throw error;
    }
  });
};

/**
 * Settles true if the answer is never fully handed to the connection (the client closed or reset it first),
 * false once it is (docs/security.md#token-endpoint-and-grants). One listener each; nothing more.
 */
function notDelivered(raw: ServerResponse): Promise<boolean> {
  if (raw.writableFinished) return Promise.resolve(false);
  if (raw.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    raw.once('finish', () => resolve(false));
    raw.once('close', () => resolve(!raw.writableFinished));
  });
}

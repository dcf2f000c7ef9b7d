import { Type } from '@sinclair/typebox';
import { InvalidRequest, UnsupportedGrantType } from '../../../oauth/errors.js';
import { exchangeAuthorizationCode } from '../../../oauth/grants/authorization-code.js';
import { DEVICE_CODE_GRANT_TYPE } from '../../../oauth/device/device-authorization.js';
import { exchangeDeviceCode } from '../../../oauth/grants/device-code.js';
import { exchangeRefreshToken } from '../../../oauth/grants/refresh-token.js';
import { present } from '../../../oauth/parameters.js';
import { type IssuedTokens, NO_STORE_HEADERS, tokenResponse } from '../../../oauth/tokens.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';
import { CLIENT_CREDENTIAL_FIELDS, authenticateFormClient, clientFormRoute } from './form-body.js';

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

/**
 * docs/interface.md#token-endpoint: the standard token endpoint (RFC 6749 §3.2),
 * answering RFC 6749 §5.1 / §5.2 JSON.
 */
export const tokenRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post('/v1/oauth2/token', clientFormRoute(TokenBody), async (request, reply) => {
    const body = request.body;
    // RFC 6749 §3.2.1: confidential clients authenticate at the token endpoint.
    const client = await authenticateFormClient(ctx, request, body);

    const grantType = present(body.grant_type);
    let issued: IssuedTokens;
    // RFC 6749 §4.1.3: grant_type is REQUIRED.
    if (grantType === undefined) {
      throw new InvalidRequest('grant_type is required');
    } else if (grantType === 'authorization_code') {
      issued = await exchangeAuthorizationCode(
        ctx,
        client,
        {
          code: present(body.code),
          redirectUri: present(body.redirect_uri),
          codeVerifier: present(body.code_verifier),
        },
        { checkRedirectUri: true, accessTokenOnly: false },
      );
    } else if (grantType === 'refresh_token') {
      issued = await exchangeRefreshToken(ctx, client, {
        refreshToken: present(body.refresh_token),
        scope: present(body.scope),
      });
    } else if (grantType === DEVICE_CODE_GRANT_TYPE) {
      issued = await exchangeDeviceCode(ctx, client, present(body.device_code));
    } else {
      // RFC 6749 §5.2 unsupported_grant_type.
      throw new UnsupportedGrantType(`grant_type "${grantType}" is not supported`);
    }

    // RFC 6749 §5.1: token responses must not be cached.
    reply.headers(NO_STORE_HEADERS);
    return tokenResponse(ctx, issued);
  });
};

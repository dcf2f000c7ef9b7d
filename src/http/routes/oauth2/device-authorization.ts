import { Type } from '@sinclair/typebox';
import { startDeviceAuthorization } from '../../../oauth/device/device-authorization.js';
import { present } from '../../../oauth/parameters.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';
import { CLIENT_CREDENTIAL_FIELDS, asClient, clientFormRoute } from './form-body.js';

/**
 * RFC 8628 §3.1: `scope` and client authentication; unrecognized parameters are ignored (some clients send
 * `grant_type` here too).
 */
const DeviceAuthorizationBody = Type.Object(
  { ...optional(Type.String(), 'scope'), ...CLIENT_CREDENTIAL_FIELDS },
  { additionalProperties: true },
);

/** RFC 8628 §3.2. */
const DeviceAuthorizationAnswer = Type.Object(
  {
    device_code: Type.String(),
    user_code: Type.String({ pattern: '^[A-Z]{4}-[A-Z]{4}$' }),
    verification_uri: Type.String(),
    verification_uri_complete: Type.String(),
    expires_in: Type.Integer({ minimum: 1 }),
    interval: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false, description: 'The codes (RFC 8628 §3.2)' },
);

/** docs/interface.md#device-authorization-grant: the device authorization endpoint (RFC 8628 §3.1). */
export const deviceAuthorizationRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/device_authorization',
    clientFormRoute(DeviceAuthorizationBody, { 200: DeviceAuthorizationAnswer }),
    // RFC 8628 §3.1: "The client authentication requirements of Section 3.2.1 of [RFC6749] apply".
    asClient(ctx, async (client, request, reply) => {
      const answer = await startDeviceAuthorization(ctx, client, {
        scope: present(request.body.scope),
        ip: request.ip,
        userAgent: request.headers['user-agent'],
      });
      // The device code is a credential: never cached (as RFC 6749 §5.1 asks of token responses).
      reply.headers(NO_STORE_HEADERS);
      return answer;
    }),
  );
};

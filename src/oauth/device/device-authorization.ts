/**
 * RFC 8628 §3.1–3.2: the device authorization request, for apps an admin allowed the device grant
 * (docs/interface.md#device-authorization-grant). Read top to bottom: each requirement is one `if`.
 */
import type { AppContext } from '../../app-context.js';
import type { ClientRecord } from '../../storage/store.js';
import { credentialKey, newCredential } from '../credentials.js';
import { UnauthorizedClient } from '../errors.js';
import { grantedScope } from '../scopes.js';
import { formatUserCode, newUserCode, userCodeKey } from '../../domain/device-user-code.js';

/** RFC 8628 §3.4: the grant type the device polls the token endpoint with. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §3.2 interval: "If no value is provided, clients MUST use 5 as the default." We say 5. */
const DEVICE_POLL_INTERVAL_S = 5;

/** RFC 8628 §3.2: the device authorization response. */
export interface DeviceAuthorizationResponse {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly verification_uri_complete: string;
  readonly expires_in: number;
  readonly interval: number;
}

export interface DeviceAuthorizationRequest {
  readonly scope: string | undefined;
  /** The device's address and user agent, shown to the user asked to approve it (RFC 8628 §5.4). */
  readonly ip: string;
  readonly userAgent: string | undefined;
}

const MAX_USER_AGENT = 256;

export async function startDeviceAuthorization(
  ctx: AppContext,
  client: ClientRecord,
  request: DeviceAuthorizationRequest,
): Promise<DeviceAuthorizationResponse> {
  // RFC 8628 §3.2 / RFC 6749 §5.2 unauthorized_client: only apps an admin switched the device grant on for.
  if (client.deviceGrant !== true) {
    throw new UnauthorizedClient('this client is not allowed to use the device authorization grant');
  }
  // RFC 8628 §3.1 / RFC 6749 §3.3: the scope of the access request (unknown values left out).
  const scope = grantedScope(request.scope);
  const now = ctx.clock.now();
  const expiresIn = ctx.config.deviceCodeTtl;
  for (;;) {
    // RFC 8628 §6.1: the device code is a high-entropy credential; the user code is short but throttled.
    const deviceCode = newCredential(now);
    const userCode = newUserCode();
    const inserted = await ctx.store.deviceAuthorizations.insert({
      deviceCodeHash: credentialKey(deviceCode),
      userCodeHash: userCodeKey(userCode),
      clientId: client.clientId,
      scope,
      createdAt: now,
      expiresAt: now + expiresIn * 1000,
      intervalS: DEVICE_POLL_INTERVAL_S,
      lastPolledAt: null,
      status: 'pending',
      uin: null,
      decidedAt: null,
      ip: request.ip,
      userAgent: request.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    });
    // A user code still live for another device (1 in 20^8 per live code): draw again.
    if (!inserted) continue;
    const written = formatUserCode(userCode);
    const verificationUri = `${ctx.config.baseUrl}/#/device`;
    return {
      device_code: deviceCode,
      user_code: written,
      verification_uri: verificationUri,
      // RFC 8628 §3.3.1: the code in the URI, so a QR code spares typing it.
      verification_uri_complete: `${verificationUri}?user_code=${written}`,
      expires_in: expiresIn,
      interval: DEVICE_POLL_INTERVAL_S,
    };
  }
}

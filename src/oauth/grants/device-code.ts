/**
 * The device_code grant (RFC 8628 §3.4–3.5; docs/interface.md#device-authorization-grant). Until the user
 * decides it answers authorization_pending (or slow_down when polled too soon), then access_denied or, once
 * approved, tokens exactly as for an authorization code: the approval stored a code under the device code's
 * key, redeemed here by the code grant's own rules (single use, disabled users, allowed_groups, refresh
 * tokens, id_token).
 */
import type { AppContext } from '../../app-context.js';
import type { ClientRecord } from '../../storage/store.js';
import { credentialKey } from '../credentials.js';
import {
  AuthorizationPending,
  DeviceAccessDenied,
  ExpiredToken,
  InvalidGrant,
  InvalidRequest,
  SlowDown,
  UnauthorizedClient,
} from '../errors.js';
import type { IssuedTokens } from '../tokens.js';
import { exchangeAuthorizationCode } from './authorization-code.js';

/** RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
const SLOW_DOWN_STEP_S = 5;

export async function exchangeDeviceCode(
  ctx: AppContext,
  client: ClientRecord,
  deviceCode: string | undefined,
): Promise<IssuedTokens> {
  // RFC 8628 §3.4: device_code is REQUIRED.
  if (deviceCode === undefined) throw new InvalidRequest('device_code is required');
  // RFC 6749 §5.2 unauthorized_client: "not authorized to use this authorization grant type".
  if (client.deviceGrant !== true) {
    throw new UnauthorizedClient('this client is not allowed to use the device authorization grant');
  }

  const deviceCodeHash = credentialKey(deviceCode);
  const request = await ctx.store.deviceAuthorizations.findByDeviceCode(deviceCodeHash);
  const now = ctx.clock.now();

  // RFC 6749 §5.2 invalid_grant; same words for another client's code: it learns nothing about it.
  if (!request || request.clientId !== client.clientId) throw new InvalidGrant('the device_code is invalid');
  // Approved: the code stored under the same key is redeemed once, as any code (RFC 8628 §3.5 "the
  // authorization server ... returns the access token").
  if (request.status === 'approved') {
    return exchangeAuthorizationCode(
      ctx,
      client,
      { code: deviceCode, redirectUri: undefined, codeVerifier: undefined },
      { checkRedirectUri: false, accessTokenOnly: false, deviceGrant: true },
    );
  }
  // RFC 8628 §3.5 access_denied: "The authorization request was denied."
  if (request.status === 'denied') throw new DeviceAccessDenied('the user denied the authorization request');
  // RFC 8628 §3.5 expired_token: "The device_code has expired, and the device authorization session has
  // concluded."
  if (request.expiresAt <= now) throw new ExpiredToken('the device_code has expired');

  // RFC 8628 §3.5 slow_down: polled sooner than the current interval after the previous poll; each time the
  // interval grows by 5 s, and stays grown.
  const tooSoon = request.lastPolledAt !== null && now - request.lastPolledAt < request.intervalS * 1000;
  const interval = tooSoon ? request.intervalS + SLOW_DOWN_STEP_S : request.intervalS;
  await ctx.store.deviceAuthorizations.recordPoll(deviceCodeHash, now, interval);
  if (tooSoon) throw new SlowDown(`polled too soon: wait at least ${interval} seconds between requests`);
  // RFC 8628 §3.5 authorization_pending: "the end user hasn't yet completed the user-interaction steps".
  throw new AuthorizationPending('the user has not yet approved or denied the request');
}

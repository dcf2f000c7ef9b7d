/**
 * RFC 8414 authorization server metadata (also served as OpenID Connect Discovery 1.0 §3).
 */
import type { Config } from '../config/config.js';
import { DEVICE_CODE_GRANT_TYPE } from './device/device-authorization.js';
import { CLIENT_CREDENTIALS_GRANT_TYPE } from './grants/client-credentials.js';
import { CODE_CHALLENGE_METHODS } from './pkce.js';
import { SUPPORTED_SCOPES } from './scopes.js';
import { ID_TOKEN_ALGS } from './signing-keys.js';

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

export function authorizationServerMetadata(config: Config): Record<string, unknown> {
  const base = config.baseUrl;
  return {
    // RFC 8414 §2: issuer is the base URL; §3.3: it must equal the one the metadata was fetched for.
    issuer: config.issuer,
    authorization_endpoint: `${base}/v1/oauth2/authorize`,
    token_endpoint: `${base}/v1/oauth2/token`,
    userinfo_endpoint: `${base}/v1/oauth2/userinfo`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    revocation_endpoint: `${base}/v1/oauth2/revoke`,
    introspection_endpoint: `${base}/v1/oauth2/introspect`,
    // RFC 8628 §4: the device authorization endpoint (docs/interface.md#device-authorization-grant).
    device_authorization_endpoint: `${base}/v1/oauth2/device_authorization`,
    // OpenID Connect RP-Initiated Logout 1.0 §2.1 and Back-Channel Logout 1.0 §2.1.
    end_session_endpoint: `${base}/v1/oauth2/logout`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'form_post'],
    grant_types_supported: [
      'authorization_code',
      'refresh_token',
      DEVICE_CODE_GRANT_TYPE,
      // RFC 6749 §4.4, for apps an admin switched it on for (docs/interface.md#service-accounts-client-credentials).
      CLIENT_CREDENTIALS_GRANT_TYPE,
    ],
    code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    introspection_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    subject_types_supported: ['public'],
    // OIDC Discovery §3: RS256 MUST be listed (OIDC Core §15.1); it signs every id_token, ES256 is offered too.
    id_token_signing_alg_values_supported: [...ID_TOKEN_ALGS],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'at_hash',
      'uin',
      'user_group',
      'created_at',
      'name',
      'preferred_username',
      'email',
      'email_verified',
      'groups',
      'sid',
    ],
    // OIDC Core §3.1.2.1: prompt none, login, consent (and select_account); max_age.
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    // RFC 9207 §3: every authorization response (success and error) carries `iss`.
    authorization_response_iss_parameter_supported: true,
  };
}

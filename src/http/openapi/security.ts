/**
 * The security of each operation in the OpenAPI document (docs/interface.md#openapi): which credentials a call
 * needs. A route may say it in its own schema (`schema.security`: the constants below); otherwise its path
 * decides: `/v1/account`, `/v1/admin` and the page's `/v1/cas` calls need the session cookie, the rest none.
 * Calls that change state with the session cookie are also CSRF-checked (route config `csrf`, enforced in
 * ../plugins/csrf.ts): the document marks them `x-csrf`.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { Config } from '../../config/config.js';
import { ADMIN_SCOPES, type AdminPermission, SCOPE_ACTIONS } from '../routes/admin/permissions.js';

type SecuritySchemeObject = NonNullable<
  NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>['securitySchemes']
>[string];

/** The names of the security schemes below. */
export type SecuritySchemeName =
  'sessionCookie' | 'bearerToken' | 'clientSecretBasic' | 'serviceToken' | 'phoneSignInCookie';

/** OpenAPI security requirements: any one of the entries, each needing all of its schemes. */
export type SecurityRequirements = ReadonlyArray<Readonly<Record<string, readonly string[]>>>;

/** No credentials (the sign-in calls, the authorization endpoint, discovery, CAS validation). */
export const PUBLIC: SecurityRequirements = [];
/** The browser session (docs/interface.md#browser-session-api). */
export const SESSION: SecurityRequirements = [{ sessionCookie: [] }];
/** The browser session when there is one; the call answers without it too (sign-out, `/cas/login`). */
export const OPTIONAL_SESSION: SecurityRequirements = [{ sessionCookie: [] }, {}];
/** An access token, RFC 6750 §2.1 (docs/interface.md#legacy-user-information, #openid-connect). */
export const BEARER: SecurityRequirements = [{ bearerToken: [] }];
/**
 * Client authentication, RFC 6749 §2.3.1: HTTP Basic, or `client_id` + `client_secret` in the form body
 * (which OpenAPI cannot name as a scheme; the body schema lists them). A public client sends `client_id` alone.
 */
export const CLIENT: SecurityRequirements = [{ clientSecretBasic: [] }, {}];

/** The computer's secret of a phone sign-in (docs/interface.md#sign-in-with-your-phone). */
export const PHONE_SIGN_IN: SecurityRequirements = [{ phoneSignInCookie: [] }];

/** The schemes the document defines (components.securitySchemes). */
export function securitySchemes(config: Config): Record<SecuritySchemeName, SecuritySchemeObject> {
  const cookie = config.secureCookies ? '__Host-campus_sso_session' : 'campus_sso_session';
  return {
    sessionCookie: {
      type: 'apiKey',
      in: 'cookie',
      name: cookie,
      description:
        'The browser session, set by POST /v1/account/login. Calls marked x-csrf also need: Origin, when ' +
        'sent, equal to the origin of BASE_URL; no Sec-Fetch-Site: cross-site; a body, if any, as ' +
        'application/json (docs/interface.md#browser-session-api).',
    },
    phoneSignInCookie: {
      type: 'apiKey',
      in: 'cookie',
      name: 'campus_sso_phone_sign_in',
      description: 'The secret of a phone sign-in, set by POST /v1/account/phone-sign-in on the computer.',
    },
    bearerToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'An access token from the token endpoint (RFC 6750 §2.1).',
    },
    clientSecretBasic: {
      type: 'http',
      scheme: 'basic',
      description:
        'Client authentication (RFC 6749 §2.3.1): Basic base64(urlencode(client_id):urlencode(client_secret)). ' +
        'Instead, client_id and client_secret may be sent in the form body (never both ways).',
    },
    serviceToken: {
      type: 'oauth2',
      description:
        'A service account: an access token of the client_credentials grant carrying admin-API scopes, sent ' +
        'as Authorization: Bearer (no cookie, no CSRF check).',
      flows: {
        clientCredentials: {
          tokenUrl: `${config.baseUrl}/v1/oauth2/token`,
          scopes: {
            'admin:users:read': 'read users',
            'admin:users:write': 'change users (never user_group, roles or admins)',
            'admin:audit:read': 'read the audit trail',
          },
        },
      },
    },
  };
}

/** What a route declares that decides its security. */
export interface RouteSecurityFacts {
  readonly url: string;
  readonly declared: SecurityRequirements | undefined;
}

/** The security of an operation: what the route declares, or what its path implies. */
export function operationSecurity({ url, declared }: RouteSecurityFacts): SecurityRequirements {
  if (declared !== undefined) return declared;
  if (url.startsWith('/v1/account/') || url.startsWith('/v1/admin/') || url.startsWith('/v1/cas/')) {
    return SESSION;
  }
  return PUBLIC;
}

/**
 * An admin route's security, from the permission it declares (docs/interface.md#roles): the session of an admin
 * or role holder, or a service token carrying a scope that allows the action.
 */
export function adminSecurity(permission: AdminPermission): SecurityRequirements {
  const scopes = ADMIN_SCOPES.filter((scope) => SCOPE_ACTIONS[scope].includes(permission.action));
  return [SESSION[0] ?? {}, ...scopes.map((scope) => ({ serviceToken: [scope] }))];
}

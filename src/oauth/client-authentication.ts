/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3.1): either
 * `client_id` + `client_secret` in the form body (client_secret_post) or HTTP Basic (client_secret_basic),
 * never both. Every campus-sso client is confidential, so a request without credentials is refused.
 */
import type { AppContext } from '../app-context.js';
import { authenticatedClient } from '../domain/apps.js';
import type { ClientRecord } from '../storage/store.js';
import { InvalidClient, InvalidRequest } from './errors.js';
import { present } from './parameters.js';

export interface ClientAuthenticationInput {
  /** The `Authorization` request header, if any. */
  readonly authorization: string | undefined;
  /** `client_id` and `client_secret` from the body, if any. */
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
}

/** The client credentials a request presented, by either method. */
export interface PresentedClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly usedBasicAuth: boolean;
}

const BASIC = /^basic[ ]+([A-Za-z0-9+/]+=*)[ ]*$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** An invalid_client error that remembers whether Basic was used, so it answers with a Basic challenge. */
function invalidClient(description: string, usedBasicAuth: boolean): InvalidClient {
  const error = new InvalidClient(description);
  error.usedBasicAuth = usedBasicAuth;
  return error;
}

/** RFC 6749 §2.3.1: the id and secret are form-urlencoded (Appendix B) before Basic encoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/** Decodes `Authorization: Basic …` (RFC 7617 §2), or answers undefined when another scheme is used. */
function readBasicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  if (header === undefined || !/^basic(\s|$)/i.test(header)) return undefined;
  const match = BASIC.exec(header);
  if (!match?.[1]) throw invalidClient('the Basic authorization header is malformed', true);
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(match[1], 'base64'));
  } catch {
    throw invalidClient('the Basic authorization header is not valid UTF-8', true);
  }
  const colon = decoded.indexOf(':');
  // RFC 7617 §2: user-pass = user-id ":" password.
  if (colon === -1)
    throw invalidClient('the Basic authorization header has no ":" between id and secret', true);
  try {
    return {
      clientId: formDecode(decoded.slice(0, colon)),
      clientSecret: formDecode(decoded.slice(colon + 1)),
    };
  } catch {
    throw invalidClient('the Basic credentials are not properly form-urlencoded (RFC 6749 §2.3.1)', true);
  }
}

/** The credentials `input` presents, or invalid_request / invalid_client when they are malformed or missing. */
export function presentedClient(input: ClientAuthenticationInput): PresentedClient {
  const basic = readBasicCredentials(input.authorization);
  const bodyId = present(input.clientId);
  const bodySecret = present(input.clientSecret);
  if (basic) {
    // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
    if (bodySecret !== undefined) {
      throw new InvalidRequest(
        'the client authenticated with both HTTP Basic and client_secret in the body; use one',
      );
    }
    // A client_id in the body beside Basic is allowed, but it must name the same client.
    if (bodyId !== undefined && bodyId !== basic.clientId) {
      throw new InvalidRequest(
        'client_id in the body differs from the one in the Basic authorization header',
      );
    }
    return { ...basic, usedBasicAuth: true };
  }
  // RFC 6749 §2.3.1: client_secret_post needs both parameters; every campus-sso client is confidential.
  if (bodyId === undefined || bodySecret === undefined) {
    throw invalidClient(
      'client authentication is required (HTTP Basic, or client_id and client_secret)',
      false,
    );
  }
  return { clientId: bodyId, clientSecret: bodySecret, usedBasicAuth: false };
}

/**
 * The authenticated, enabled client, or invalid_client (RFC 6749 §5.2: "Client authentication failed").
 * The secret is compared in constant time by `AppService.authenticate`.
 */
export async function authenticateClient(
  ctx: AppContext,
  input: ClientAuthenticationInput,
): Promise<ClientRecord> {
  return authenticatePresented(ctx, presentedClient(input));
}

/** authenticateClient, for credentials already read. */
export async function authenticatePresented(
  ctx: AppContext,
  presented: PresentedClient,
): Promise<ClientRecord> {
  return clientOrRefusal(await ctx.apps.authenticate(presented.clientId, presented.clientSecret), presented);
}

/**
 * `app`, read for the client_id presented, if the presented secret is its secret and it is enabled
 * (`authenticatedClient`, constant time); else invalid_client.
 */
export function authenticateAgainst(app: ClientRecord | undefined, presented: PresentedClient): ClientRecord {
  return clientOrRefusal(authenticatedClient(app, presented.clientSecret), presented);
}

function clientOrRefusal(client: ClientRecord | undefined, presented: PresentedClient): ClientRecord {
  if (!client) throw invalidClient('client authentication failed', presented.usedBasicAuth);
  return client;
}

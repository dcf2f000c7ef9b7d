import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import {
  type PresentedClient,
  authenticatePresented,
  presentedClient,
} from '../../../oauth/client-authentication.js';
import { InvalidRequest } from '../../../oauth/errors.js';
import type { ClientRecord } from '../../../storage/store.js';
import { optional } from '../../schemas.js';
import { CLIENT } from '../../openapi/security.js';

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * RFC 6749 §3.2, RFC 7009 §2.1, RFC 7662 §2.1: these endpoints take `application/x-www-form-urlencoded`.
 * Runs before schema validation, so a JSON body is refused as such rather than half-understood.
 */
export async function requireFormBody(request: FastifyRequest): Promise<void> {
  const contentType = request.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    throw new InvalidRequest('the request body must be application/x-www-form-urlencoded');
  }
}

/**
 * The route options of a client-authenticated form endpoint (token, revocation, introspection, device
 * authorization): its body schema, its answers, the form-only rule above, client authentication, and errors
 * in the OAuth style (RFC 6749 §5.2).
 */
export function clientFormRoute<S extends TSchema, R extends Record<number, unknown>>(body: S, response: R) {
  return {
    schema: { body, response, consumes: [FORM_MEDIA_TYPE], security: CLIENT },
    preValidation: requireFormBody,
    config: { errorStyle: 'oauth' as const },
  };
}

/**
 * The form fields of client authentication (RFC 6749 §2.3.1), part of every client-authenticated body. Known
 * parameters are strings sent once (a repeated one arrives as an array and fails, §3.1); unrecognized
 * parameters MUST be ignored (§3.2), so bodies built on these allow additional properties.
 */
export const CLIENT_CREDENTIAL_FIELDS = optional(Type.String(), 'client_id', 'client_secret');

/** RFC 7009 §2.1 and RFC 7662 §2.1: the body naming one token, for revocation and introspection. */
export const TokenReferenceBody = Type.Object(
  { ...optional(Type.String(), 'token', 'token_type_hint'), ...CLIENT_CREDENTIAL_FIELDS },
  { additionalProperties: true },
);

/** The client authentication fields of a form body (CLIENT_CREDENTIAL_FIELDS). */
interface ClientCredentials {
  readonly client_id?: string | undefined;
  readonly client_secret?: string | undefined;
}

/** Authenticates the client by HTTP Basic or by the form fields (never both). */
export function authenticateFormClient(
  ctx: AppContext,
  request: FastifyRequest,
  body: ClientCredentials,
): Promise<ClientRecord> {
  return authenticatePresented(ctx, presentedFormClient(request, body));
}

/** The client credentials presented by HTTP Basic or by the form fields (never both), not yet checked. */
export function presentedFormClient(
  request: FastifyRequest,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): PresentedClient {
  return presentedClient({
    authorization: request.headers.authorization,
    clientId: body.client_id,
    clientSecret: body.client_secret,
  });
}

/**
 * The handler of a back-channel endpoint (revocation, introspection, device authorization): `handle` runs once
 * the client is authenticated (RFC 7009 §2.1, RFC 7662 §2.1, RFC 8628 §3.1, each by RFC 6749 §2.3.1), and gets
 * the client first.
 */
export function asClient<Request extends FastifyRequest<{ Body: ClientCredentials }>, Reply, Answer>(
  ctx: AppContext,
  handle: (client: ClientRecord, request: Request, reply: Reply) => Promise<Answer>,
): (request: Request, reply: Reply) => Promise<Answer> {
  return async (request, reply) =>
    handle(await authenticateFormClient(ctx, request, request.body), request, reply);
}

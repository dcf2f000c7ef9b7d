import type { FastifyRequest } from 'fastify';
import { InvalidRequest } from '../../../oauth/errors.js';

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

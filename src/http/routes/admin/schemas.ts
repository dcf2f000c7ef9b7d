import { Type, type TUnsafe } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { USER_GROUPS, type UserGroup } from '../../../shared/users.js';
import { badRequest } from '../../api-error.js';
import { ClientIdParam } from '../../schemas.js';

/**
 * A string from a fixed list, as a plain JSON Schema `enum` (TypeBox's `Union` of literals makes Ajv say
 * "must be equal to constant", which names no allowed value).
 */
export function StringEnum<T extends string>(values: readonly T[]): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values] });
}

export const UserGroupSchema = StringEnum<UserGroup>(USER_GROUPS);

/**
 * `client_id` in a path. New apps get 16 characters of [A-Za-z0-9] (docs/interface.md#resources), but
 * apps imported from the previous system keep the client_id they had, so any short URL-safe identifier is
 * accepted.
 */
export const ClientIdParams = Type.Object({ client_id: ClientIdParam }, { additionalProperties: false });

/** A uin in a path: digits without a leading zero; the handler checks it is at most 2^53−1. */
export const UinParams = Type.Object(
  { uin: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) },
  { additionalProperties: false },
);

/** Calls documented with no body (rotate-secret, delete) refuse one, rather than silently ignoring it. */
export function rejectBody(request: FastifyRequest): void {
  const body: unknown = request.body;
  if (body === undefined || body === null) return;
  if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return;
  throw badRequest('this call takes no body');
}

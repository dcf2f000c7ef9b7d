/**
 * The fields of a user in the admin API (docs/interface.md#admin-api): the bodies' schemas and the checks the
 * user routes share.
 */
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.js';
import { findUser } from '../../../domain/admin-reads.js';
import { passwordRefusal } from '../../../domain/passwords.js';
import { isValidUin } from '../../../domain/users.js';
import { ROLES, type Role } from '../../../shared/roles.js';
import { badRequest, notFound, passwordRefused } from '../../api-error.js';
import { ExpiresAtSchema, GroupListSchema, NullableString } from './people.js';
import { StringEnum, UserGroupSchema } from './schemas.js';

export const NewUserBody = Type.Object(
  {
    // A JSON integer, positive, at most 2^53−1 (docs/interface.md#resources).
    uin: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    password: Type.String(),
    user_group: UserGroupSchema,
    name: Type.Optional(NullableString(256)),
    email: Type.Optional(NullableString(256)),
    groups: Type.Optional(GroupListSchema),
    expires_at: Type.Optional(ExpiresAtSchema),
  },
  { additionalProperties: false },
);

/** docs/interface.md#roles: each role once, with the group tags it covers. */
export const RoleListSchema = Type.Array(
  Type.Object({ role: StringEnum<Role>(ROLES), groups: GroupListSchema }, { additionalProperties: false }),
  { maxItems: ROLES.length },
);

export const UserChangesBody = Type.Object(
  {
    user_group: Type.Optional(UserGroupSchema),
    disabled: Type.Optional(Type.Boolean()),
    password: Type.Optional(Type.String()),
    name: Type.Optional(NullableString(256)),
    email: Type.Optional(NullableString(256)),
    groups: Type.Optional(GroupListSchema),
    expires_at: Type.Optional(ExpiresAtSchema),
    roles: Type.Optional(RoleListSchema),
  },
  { additionalProperties: false },
);

export function checkedPassword(password: string, uin: number): string {
  const refusal = passwordRefusal(password, uin);
  if (refusal) throw passwordRefused(refusal);
  return password;
}

export function pathUin(raw: string): number {
  const uin = Number(raw);
  if (!isValidUin(uin))
    throw badRequest(`uin must be a positive whole number up to ${Number.MAX_SAFE_INTEGER}`);
  return uin;
}

/** The uin of an existing user from the path: 400 when it is not a uin, 404 when nobody has it. */
export async function existingUserUin(ctx: AppContext, raw: string): Promise<number> {
  const uin = pathUin(raw);
  if (!(await findUser(ctx, uin))) throw notFound(`no user with uin ${uin}`);
  return uin;
}

/**
 * The JSON shapes of src/shared/views.ts and src/shared/pages.ts as response schemas (docs/interface.md#openapi).
 * The routes declare their answers with these; the type provider then checks each handler's answer against
 * them at compile time, so a view and its schema cannot drift apart.
 */
import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { ROLES } from '../shared/roles.js';
import { USER_GROUPS } from '../shared/users.js';

/** One of these strings, as a plain JSON Schema `enum`. */
const StringEnum = <T extends string>(values: readonly T[]): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values] });

/** An array the answer builds as `readonly T[]` (the views' type), checked as an array. */
export const ReadonlyArray = <T extends TSchema>(items: T) =>
  Type.Unsafe<readonly Static<T>[]>(Type.Array(items));

/** `Date.prototype.toISOString()` (docs/interface.md#resources). */
export const Timestamp = Type.String({ format: 'date-time' });

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An object whose members are exactly these. */
const Exactly = <P extends Parameters<typeof Type.Object>[0]>(properties: P) =>
  Type.Object(properties, { additionalProperties: false });

export const UserGroupView = StringEnum(USER_GROUPS);

/** A role beside `user_group` (docs/interface.md#roles). */
export const RoleGrantViewSchema = Exactly({
  role: StringEnum(ROLES),
  groups: ReadonlyArray(Type.String()),
});

const USER = {
  uin: Type.Integer({ minimum: 1 }),
  user_group: UserGroupView,
  created_at: Timestamp,
};

const MUST_CHANGE_PASSWORD = { must_change_password: Type.Optional(Type.Literal(true)) };

export const UserViewSchema = Exactly(USER);

export const AdminUserViewSchema = Exactly({
  ...USER,
  disabled: Type.Boolean(),
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  groups: ReadonlyArray(Type.String()),
  expires_at: Nullable(Timestamp),
  last_sign_in_at: Nullable(Timestamp),
  locked_until: Nullable(Timestamp),
  source: StringEnum(['local', 'ldap'] as const),
  second_factors: ReadonlyArray(StringEnum(['totp', 'passkey'] as const)),
  roles: ReadonlyArray(RoleGrantViewSchema),
});

export const MeViewSchema = Exactly({
  ...USER,
  ...MUST_CHANGE_PASSWORD,
  source: Type.Optional(Type.Literal('ldap')),
  name: Type.Optional(Type.String()),
  roles: Type.Optional(ReadonlyArray(RoleGrantViewSchema)),
});

const SIGNED_IN = { uin: USER.uin, user_group: UserGroupView, ...MUST_CHANGE_PASSWORD };

export const SignedInViewSchema = Exactly(SIGNED_IN);

export const PendingSignInViewSchema = Exactly({
  ...SIGNED_IN,
  second_factor: ReadonlyArray(StringEnum(['passkey', 'totp', 'recovery_code'] as const)),
});

/** Which app (AppIdentityView). */
const APP_IDENTITY = { client_id: Type.String(), name: Type.String(), emoji: Type.String() };

export const AppViewSchema = Exactly({
  ...APP_IDENTITY,
  redirect_uris: ReadonlyArray(Type.String()),
  created_at: Timestamp,
  disabled: Type.Boolean(),
  allow_refresh_tokens: Type.Boolean(),
  allowed_groups: ReadonlyArray(Type.String()),
  post_logout_redirect_uris: ReadonlyArray(Type.String()),
  backchannel_logout_uri: Nullable(Type.String()),
  backchannel_logout_last_attempt: Nullable(Exactly({ at: Timestamp, result: Type.String() })),
  backchannel_logout_pending: Type.Optional(Type.Integer({ minimum: 0 })),
  listed: Type.Boolean(),
  homepage_url: Nullable(Type.String()),
  device_grant: Type.Boolean(),
  cas_services: ReadonlyArray(Type.String()),
  client_credentials: Type.Boolean(),
  allowed_scopes: ReadonlyArray(Type.String()),
});

export const CasServiceInfoViewSchema = Exactly({
  name: Type.String(),
  emoji: Type.String(),
  host: Type.String(),
  allowed: Type.Optional(Type.Literal(false)),
  shared_computer: Type.Boolean(),
});

export const SessionViewSchema = Exactly({
  id: Type.String(),
  created_at: Timestamp,
  last_seen_at: Timestamp,
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  shared: Type.Boolean(),
  current: Type.Boolean(),
});

export const DeviceRequestViewSchema = Exactly({
  ...APP_IDENTITY,
  scope: Nullable(Type.String()),
  requested_at: Timestamp,
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  expires_at: Timestamp,
});

export const DeviceDecisionViewSchema = Exactly({
  decision: StringEnum(['allowed', 'denied'] as const),
  name: Type.String(),
  emoji: Type.String(),
});

export const AuthorizationRequestErrorSchema = Exactly({
  error: Type.String(),
  error_description: Type.String(),
  redirect_to: Type.String(),
});

export const AppInfoViewSchema = Exactly({
  ...APP_IDENTITY,
  consented: Type.Boolean(),
  stays_signed_in_days: Type.Optional(Type.Integer({ minimum: 0 })),
  allowed: Type.Optional(Type.Literal(false)),
  shared_computer: Type.Boolean(),
  request_error: Type.Optional(AuthorizationRequestErrorSchema),
});

export const ConsentViewSchema = Exactly({
  ...APP_IDENTITY,
  scope: Nullable(Type.String()),
  granted_at: Timestamp,
});

export const PasskeyViewSchema = Exactly({
  id: Type.String(),
  name: Type.String(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  synced: Type.Boolean(),
});

export const SecondFactorsViewSchema = Exactly({
  totp: Type.Boolean(),
  passkeys: ReadonlyArray(PasskeyViewSchema),
  recovery_codes_left: Type.Integer({ minimum: 0 }),
  required: Type.Boolean(),
});

export const AuditEventViewSchema = Exactly({
  id: Type.String(),
  at: Timestamp,
  actor_uin: Nullable(Type.Integer()),
  action: Type.String(),
  target: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  outcome: Type.String(),
  detail: Nullable(Type.Record(Type.String(), Type.Unknown())),
  actor_client_id: Nullable(Type.String()),
});

export const BrandingViewSchema = Exactly({
  name: Nullable(Type.String()),
  name_zh: Nullable(Type.String()),
  logo_url: Nullable(Type.String()),
  color: Nullable(Type.String()),
  helpdesk: Nullable(Type.String()),
});

export const LauncherAppViewSchema = Exactly({
  ...APP_IDENTITY,
  homepage_url: Type.String(),
});

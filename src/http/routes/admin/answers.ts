/**
 * The answers of the admin API (docs/interface.md#admin-api) as response schemas, declared by each route in
 * `schema.response` (docs/interface.md#openapi); the type provider checks each handler's answer against them.
 */
import { Type } from '@sinclair/typebox';
import { EmptyEnvelope, EnvelopeOf } from '../../response-schemas.js';
import { AdminUserViewSchema, AppViewSchema, AuditEventViewSchema, Timestamp } from '../../view-schemas.js';
import { StringEnum } from './schemas.js';
import type { Readable } from 'node:stream';

export const AppsAnswers = { 200: EnvelopeOf({ apps: Type.Array(AppViewSchema) }) };
export const AppAnswers = { 200: EnvelopeOf({ app: AppViewSchema }) };
/** docs/interface.md#resources: the secret is shown in full this once. */
export const NewAppAnswers = {
  200: EnvelopeOf({ app: AppViewSchema, client_secret: Type.String() }, 'The app and its secret, shown once'),
};
export const RotatedSecretAnswers = {
  200: EnvelopeOf({ client_id: Type.String(), client_secret: Type.String() }, 'The new secret, shown once'),
};

export const UsersAnswers = {
  200: EnvelopeOf({ users: Type.Array(AdminUserViewSchema), total: Type.Integer({ minimum: 0 }) }),
};
export const UserAnswers = { 200: EnvelopeOf({ user: AdminUserViewSchema }) };

export const DoneAnswers = { 200: EmptyEnvelope };
export const ResetCodeAnswers = {
  200: EnvelopeOf({ code: Type.String(), expires_at: Timestamp }, 'The one-time code, shown once'),
};
export const SignedOutAnswers = { 200: EnvelopeOf({ sessions_ended: Type.Integer({ minimum: 0 }) }) };

export const BulkAnswers = {
  200: EnvelopeOf({
    results: Type.Array(
      Type.Object(
        {
          uin: Type.Integer(),
          status: StringEnum(['changed', 'not_found', 'error'] as const),
          error: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  }),
};

export const ImportAnswers = {
  200: EnvelopeOf({
    results: Type.Array(
      Type.Object(
        {
          line: Type.Integer(),
          uin: Type.Union([Type.Integer(), Type.String(), Type.Null()]),
          status: StringEnum(['created', 'exists', 'error'] as const),
          error: Type.Optional(Type.String()),
          reset_code: Type.Optional(Type.String()),
          reset_code_expires_at: Type.Optional(Timestamp),
        },
        { additionalProperties: false },
      ),
    ),
  }),
};

export const AuditAnswers = {
  200: EnvelopeOf({
    events: Type.Array(AuditEventViewSchema),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
};
/** The same events as CSV (docs/interface.md#people-groups-and-audit). */
export const AuditCsvAnswers = {
  200: {
    description: 'The events as CSV (UTF-8 with a byte-order mark), as an attachment',
    // Sent as a stream, a page of events at a time.
    content: { 'text/csv': { schema: Type.Unsafe<Readable>(Type.String()) } },
  },
};

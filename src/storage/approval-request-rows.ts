/**
 * The columns every approval request table has (connection.ts RequestTable: device_authorizations,
 * phone_sign_ins), mapped to ApprovalRequest; each table's module maps its own columns beside these (and
 * stores a request by the rule of columns.ts).
 */
import { type RequestTable, nullableNumber } from './connection.js';
import type { Row } from './schema.js';
import type { ApprovalRequest } from './store.js';

type ApprovalRequestColumns = Pick<
  Row<RequestTable>,
  'created_at' | 'expires_at' | 'status' | 'uin' | 'ip' | 'user_agent'
>;

/** The columns shared by every approval request, as the fields of an `R` (its statuses among them). */
export function toApprovalRequest<R extends ApprovalRequest<string>>(
  row: ApprovalRequestColumns,
): ApprovalRequest<R['status']> {
  return {
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    status: row.status as R['status'],
    uin: nullableNumber(row.uin),
    ip: row.ip,
    userAgent: row.user_agent,
  };
}

/** Admin: people, groups and the audit trail (README "Admin API"). */

import { call, query } from './http';
import type {
  AdminUserView,
  AuditEventView,
  AuditFilters,
  BulkRequest,
  BulkResult,
  ImportResult,
  ImportRow,
  UserGroup,
  UserProfilePatch,
} from './types';

export const adminUsersApi = {
  listUsers: (params: {
    search?: string;
    name?: string;
    group?: UserGroup;
    tag?: string;
    offset: number;
    limit: number;
  }) => call<{ users: AdminUserView[]; total: number }>('GET', `/v1/admin/users${query({ ...params })}`),
  createUser: (user: { uin: number; password: string; user_group: UserGroup }) =>
    call<{ user: AdminUserView }>('POST', '/v1/admin/users', user),
  updateUser: (uin: number, patch: Partial<{ user_group: UserGroup; disabled: boolean; password: string }>) =>
    call<{ user: AdminUserView }>('PATCH', `/v1/admin/users/${uin}`, patch),
  signOutUser: (uin: number) =>
    call<{ sessions_ended: number }>('POST', `/v1/admin/users/${uin}/sign-out`, {}),
  /** `days`: the lifetime of the reset codes of rows without a password, 1 to 14 (without it, 24 hours). */
  importUsers: (rows: ImportRow[], days?: number) =>
    call<{ results: ImportResult[] }>('POST', '/v1/admin/users/import', {
      rows,
      ...(days !== undefined && { reset_code_days: days }),
    }),
  updateProfile: (uin: number, patch: UserProfilePatch) =>
    call<{ user: AdminUserView }>('PATCH', `/v1/admin/users/${uin}`, patch),
  bulkUsers: (request: BulkRequest) =>
    call<{ results: BulkResult[] }>('POST', '/v1/admin/users/bulk', request),
  unlockUser: (uin: number) => call<object>('POST', `/v1/admin/users/${uin}/unlock`, {}),
  removeSecondFactors: (uin: number) => call<object>('DELETE', `/v1/admin/users/${uin}/second-factors`),
  /** `days`: the code's lifetime, 1 to 14 (without it, 24 hours). */
  issueResetCode: (uin: number, days?: number) =>
    call<{ code: string; expires_at: string }>(
      'POST',
      `/v1/admin/users/${uin}/reset-code`,
      days === undefined ? {} : { days },
    ),
  audit: (filters: AuditFilters & { cursor?: string; limit?: number }) =>
    call<{ events: AuditEventView[]; next_cursor: string | null }>(
      'GET',
      `/v1/admin/audit${query({ ...filters })}`,
    ),
  auditCsvUrl: (filters: AuditFilters) => `/v1/admin/audit.csv${query({ ...filters })}`,
};

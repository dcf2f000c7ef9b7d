/**
 * Acting on many users at once from the Users panel (docs/interface.md#people-groups-and-audit): every user
 * matching the list's filters ("select all N matching"), a bulk change in chunks the server accepts, and new
 * reset codes with sign-in cards for a class rollout.
 */
import { api, type AdminUserView, type BulkRequest, type BulkResult, type UserGroup } from '../api';
import type { SignInCard } from './sign-in-cards';

/** New reset codes live a week unless the admin chooses 1 to 14 days. */
export const DEFAULT_CODE_DAYS = 7;

/** The largest page `GET /v1/admin/users` answers, and the most uins `POST /v1/admin/users/bulk` takes. */
const PAGE = 200;
const BULK_CHUNK = 1000;

/** The filters of the Users list, as `GET /v1/admin/users` takes them. */
export interface UserFilters {
  readonly search?: string;
  readonly name?: string;
  readonly group?: UserGroup;
  readonly tag?: string;
}

/** A selected user: enough to act on them and to print their card. */
export type SelectedUser = Pick<AdminUserView, 'uin' | 'name' | 'source'>;

/** The search box: digits find UINs that start with them; anything else, names that contain it. */
export function filtersFrom(text: string, group: UserGroup | null, tag: string): UserFilters {
  const trimmed = text.trim();
  const byUin = /^\d+$/.test(trimmed);
  return {
    search: byUin ? trimmed : undefined,
    name: byUin || trimmed === '' ? undefined : trimmed,
    group: group ?? undefined,
    tag: tag.trim().toLowerCase() || undefined,
  };
}

/** Every user the filters match, a page at a time. */
export async function allMatching(filters: UserFilters): Promise<SelectedUser[]> {
  const found: SelectedUser[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { users, total } = await api.listUsers({ ...filters, offset, limit: PAGE });
    found.push(...users.map(({ uin, name, source }) => ({ uin, name, source })));
    if (users.length < PAGE || found.length >= total) return found;
  }
}

/** One bulk change for any number of users, sent in chunks; the results of all chunks together. */
export async function bulkChange(request: BulkRequest): Promise<BulkResult[]> {
  const results: BulkResult[] = [];
  for (let i = 0; i < request.uins.length; i += BULK_CHUNK) {
    const chunk = request.uins.slice(i, i + BULK_CHUNK);
    results.push(...(await api.bulkUsers({ ...request, uins: chunk })).results);
  }
  return results;
}

export interface IssuedCodes {
  readonly cards: SignInCard[];
  /** Users who got no code (a directory account, or one the server refused), with the reason. */
  readonly failed: { uin: number; reason: string }[];
}

/**
 * A new reset code for each user (replacing any earlier one), valid `days` days, each audited by the
 * server; `progress` is told how many are done.
 */
export async function issueCodes(
  users: readonly SelectedUser[],
  days: number,
  describe: (error: unknown) => string,
  progress: (done: number) => void = () => undefined,
): Promise<IssuedCodes> {
  const cards: SignInCard[] = [];
  const failed: { uin: number; reason: string }[] = [];
  for (const [index, user] of users.entries()) {
    try {
      const { code, expires_at } = await api.issueResetCode(user.uin, days);
      cards.push({ uin: user.uin, name: user.name ?? undefined, code, expiresAt: expires_at });
    } catch (error) {
      failed.push({ uin: user.uin, reason: describe(error) });
    }
    progress(index + 1);
  }
  return { cards, failed };
}

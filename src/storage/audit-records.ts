/** The records of reset codes, the audit trail and one-at-a-time work (docs/architecture.md#storage). */

/** A one-time password reset code (docs/interface.md#people-groups-and-audit), stored as its SHA-256 only. */
export interface ResetCodeRecord {
  readonly uin: number;
  readonly codeHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** One recorded security event (docs/interface.md#people-groups-and-audit). */
export interface AuditEventRecord {
  readonly id: string;
  readonly at: number;
  readonly actorUin: number | null;
  readonly action: string;
  /** What the action was on: `user:<uin>`, `app:<client_id>`, … */
  readonly target: string | null;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly outcome: string;
  /** Never a secret. */
  readonly detail: Readonly<Record<string, unknown>> | null;
  /** The app whose service token made the call (docs/interface.md#service-tokens-at-the-admin-api); null for a person. */
  readonly actorClientId?: string | null;
}

/**
 * The users a role holder reaches (docs/interface.md#roles): those carrying one of `anyTags` who are not
 * admins and hold no role (a helpdesk member's people), and anyone carrying one of `everyoneTags` (the users
 * an auditor reads, admins and role holders among them).
 */
export interface UserScope {
  readonly anyTags: readonly string[];
  readonly everyoneTags?: readonly string[] | undefined;
}

export interface AuditQuery {
  /** Events by this uin or on the user with this uin. */
  readonly uin?: number | undefined;
  /** Only events by or on the users of this scope (a role holder's audit view). */
  readonly about?: UserScope | undefined;
  readonly actions?: readonly string[] | undefined;
  readonly outcome?: string | undefined;
  /** Epoch ms, inclusive. */
  readonly since?: number | undefined;
  /** Epoch ms, exclusive. */
  readonly until?: number | undefined;
  /** Only events older than this position in the (at, id) order (keyset pagination). */
  readonly before?: { readonly at: number; readonly id: string } | undefined;
  readonly limit: number;
}

/** How work that runs one at a time (`Store.exclusive`) went: done, or not started because it runs elsewhere. */
export type Exclusive<T> = { readonly ran: true; readonly value: T } | { readonly ran: false };

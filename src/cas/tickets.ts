/**
 * CAS service tickets (Apereo CAS Protocol 3.0 §3.1, docs/interface.md#cas-protocol): issued at `/cas/login`
 * to a signed-in user for a registered service, validated once by the service. A ticket is `ST-` and 160
 * random bits in hex (§3.7: `[A-Za-z0-9-]`), stored only as its SHA-256 digest, valid `CAS_TICKET_TTL`
 * seconds, bound to the service URL and to the session it was issued in.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import type { AuditSource } from '../domain/audit.js';
import { appTarget } from '../domain/audit.js';
import { sha256Hex } from '../domain/crypto.js';
import { isActiveUser } from '../domain/users.js';
import { groupsAllow } from '../shared/people.js';
import type { AppRecord, CasTicketRecord, SessionRecord, UserRecord } from '../storage/store.js';
import type { CasAttributeValue, CasFailureCode } from './responses.js';
import { matchingService } from './services.js';

/** §3.7: ticket characters; §3.1: tickets start with `ST-`. */
const SERVICE_TICKET = /^ST-[A-Za-z0-9-]{1,253}$/;
/** A sign-in counts as new (`isFromNewLogin`, `renew`) for this long after the password was typed. */
export const NEW_LOGIN_WINDOW_MS = 2 * 60_000;

/** The AAD a validated ticket is sealed with: its row, so a sealed value copied elsewhere does not open. */
export function sealedTicketAad(ticketHash: string): string {
  return `cas-ticket:${ticketHash}`;
}

function newServiceTicket(): string {
  return `ST-${randomBytes(20).toString('hex')}`;
}

/**
 * Whether a ticket issued now in `session` comes from a new sign-in (CAS 3.0 §2.5.4 `isFromNewLogin`): the
 * password was typed at most two minutes ago, and no ticket of this session has been marked so before.
 */
export async function isNewLogin(ctx: AppContext, session: SessionRecord): Promise<boolean> {
  if (ctx.clock.now() - session.createdAt > NEW_LOGIN_WINDOW_MS) return false;
  return !(await ctx.store.casTickets.hasNewLoginTicket(session.sid));
}

/** Whether the user may receive tickets for the app: enabled, unexpired, and in its allowed groups. */
export function userMayUseService(user: UserRecord, app: AppRecord, now: number): boolean {
  return isActiveUser(user, now) && groupsAllow(app.allowedGroups, user.groups);
}

/** Issues a ticket for `service` (of `app`) in `session`; answers the ticket. Audited. */
export async function issueServiceTicket(
  ctx: AppContext,
  request: AuditSource,
  input: { session: SessionRecord; app: AppRecord; service: string; fromNewLogin: boolean },
): Promise<string> {
  const now = ctx.clock.now();
  const ticket = newServiceTicket();
  await ctx.store.casTickets.insert({
    ticketHash: sha256Hex(ticket),
    clientId: input.app.clientId,
    service: input.service,
    uin: input.session.uin,
    sid: input.session.sid,
    fromNewLogin: input.fromNewLogin,
    authTime: input.session.createdAt,
    amr: input.session.amr,
    createdAt: now,
    expiresAt: now + ctx.config.casTicketTtl * 1000,
    usedAt: null,
  });
  await ctx.audit.record({
    action: 'cas_ticket_issued',
    actorUin: input.session.uin,
    target: appTarget(input.app.clientId),
    detail: { service: input.service, from_new_login: input.fromNewLogin },
    request,
  });
  return ticket;
}

/**
 * `service` with `ticket=…` added (CAS 3.0 §2.2.4), its query and fragment kept byte for byte (re-serializing
 * the query would change what the service compares at validation). The ticket needs no escaping.
 */
export function serviceWithTicket(service: string, ticket: string): string {
  const hash = service.indexOf('#');
  const [base, fragment] = hash === -1 ? [service, ''] : [service.slice(0, hash), service.slice(hash)];
  return `${base}${base.includes('?') ? '&' : '?'}ticket=${ticket}${fragment}`;
}

export type ValidationOutcome =
  | { readonly ok: true; readonly ticket: CasTicketRecord; readonly user: UserRecord }
  | { readonly ok: false; readonly code: CasFailureCode; readonly description: string };

function failure(code: CasFailureCode, description: string): ValidationOutcome {
  return { ok: false, code, description };
}

export interface ValidationRequest {
  readonly ticket: string | undefined;
  readonly service: string | undefined;
  readonly renew: boolean;
}

/**
 * CAS 3.0 §2.5: validates a service ticket, once. Each rule is one `if`; any attempt on a known ticket uses
 * it up, whatever the outcome (§3.1.1). A success records the (sealed) ticket for the session's single
 * logout.
 */
export async function validateServiceTicket(
  ctx: AppContext,
  request: AuditSource,
  params: ValidationRequest,
): Promise<ValidationOutcome> {
  // §2.5.1: `service` and `ticket` are REQUIRED.
  if (!params.ticket || !params.service)
    return failure('INVALID_REQUEST', "'service' and 'ticket' parameters are both required");
  // §3.7: a service ticket begins with `ST-`; anything else is not one of ours.
  if (!SERVICE_TICKET.test(params.ticket))
    return failure('INVALID_TICKET', `Ticket ${params.ticket} not recognized`);
  const ticketHash = sha256Hex(params.ticket);
  const now = ctx.clock.now();
  // §3.1.1: "Service tickets MUST only be valid for one ticket validation attempt."
  const ticket = await ctx.store.casTickets.redeem(ticketHash, now);
  if (!ticket) {
    const used = await ctx.store.casTickets.find(ticketHash);
    const outcome = failure('INVALID_TICKET', `Ticket ${params.ticket} not recognized`);
    // A ticket campus-sso issued, presented again: recorded, as every attempt on it is.
    if (used) await auditValidation(ctx, request, used, params, outcome, 'the ticket was used already');
    return outcome;
  }
  const outcome = await checkRedeemed(ctx, ticket, params, ticketHash, now);
  await auditValidation(ctx, request, ticket, params, outcome);
  return outcome;
}

/** A failure's description with the ticket left out: "Ticket ST-… has expired" is "The ticket has expired". */
function withoutTicket(description: string, ticket: string): string {
  return ticket === ''
    ? description
    : description.replaceAll(`Ticket ${ticket}`, 'The ticket').replaceAll(ticket, 'the ticket');
}

/**
 * The audit event of a validation attempt on a ticket campus-sso issued: on failure, the protocol's code
 * (`error`) and the reason, without the ticket itself (docs/interface.md#audit-trail: never a secret).
 */
async function auditValidation(
  ctx: AppContext,
  request: AuditSource,
  ticket: CasTicketRecord,
  params: ValidationRequest,
  outcome: ValidationOutcome,
  reason = outcome.ok ? '' : withoutTicket(outcome.description, params.ticket ?? ''),
): Promise<void> {
  await ctx.audit.record({
    action: 'cas_ticket_validated',
    outcome: outcome.ok ? 'success' : 'failure',
    actorUin: ticket.uin,
    target: appTarget(ticket.clientId),
    detail: {
      service: params.service,
      ...(!outcome.ok && { error: outcome.code, reason }),
    },
    request,
  });
}

async function checkRedeemed(
  ctx: AppContext,
  ticket: CasTicketRecord,
  params: ValidationRequest,
  ticketHash: string,
  now: number,
): Promise<ValidationOutcome> {
  // §3.1.1: tickets expire; campus-sso gives them CAS_TICKET_TTL seconds.
  if (now >= ticket.expiresAt) return failure('INVALID_TICKET', `Ticket ${params.ticket} has expired`);
  // §2.5.1 / §2.5.3 INVALID_SERVICE: the ticket is for another service (it is used up all the same).
  if (params.service !== ticket.service) {
    return failure('INVALID_SERVICE', `Ticket ${params.ticket} does not match the service ${params.service}`);
  }
  // §2.5.1 renew: only a ticket issued from the user's primary credentials passes.
  if (params.renew && !ticket.fromNewLogin) {
    return failure(
      'INVALID_TICKET',
      `Ticket ${params.ticket} did not come from a new sign-in, and renew was asked`,
    );
  }
  const app = await ctx.store.apps.find(ticket.clientId);
  if (!app || app.disabled || matchingService(app, ticket.service) === undefined) {
    return failure('INVALID_SERVICE', `The service ${params.service} is no longer registered`);
  }
  const user = await ctx.store.users.find(ticket.uin);
  if (!user || !userMayUseService(user, app, now)) {
    return failure(
      'INVALID_TICKET',
      `Ticket ${params.ticket} was issued to an account that cannot use this service`,
    );
  }
  const sealed = (await ctx.secretBox()).seal(params.ticket ?? '', sealedTicketAad(ticketHash));
  // Bound to its session: if the user signed out meanwhile, the ticket is void.
  if (!(await ctx.store.casTickets.recordValidation(ticketHash, ticket.sid, sealed, now))) {
    return failure('INVALID_TICKET', `Ticket ${params.ticket} belongs to a session that has ended`);
  }
  return { ok: true, ticket, user };
}

/** The CAS 3.0 names of how the user signed in (`successfulAuthenticationHandlers`), from RFC 8176 values. */
const HANDLERS: Readonly<Record<string, string>> = {
  pwd: 'PasswordAuthenticationHandler',
  otp: 'OneTimePasswordAuthenticationHandler',
  hwk: 'PasskeyAuthenticationHandler',
  swk: 'PasskeyAuthenticationHandler',
};

/** CAS 3.0 §2.6 / docs/interface.md#cas-protocol: the attributes released by the 3.0 endpoints. */
export function casAttributes(
  ticket: CasTicketRecord,
  user: UserRecord,
): Readonly<Record<string, CasAttributeValue>> {
  const handlers = [...new Set(ticket.amr.map((method) => HANDLERS[method]).filter((h) => h !== undefined))];
  return {
    uin: user.uin,
    user_group: user.userGroup,
    groups: user.groups,
    ...(user.name !== null && user.name !== '' && { name: user.name }),
    ...(user.email !== null && user.email !== '' && { email: user.email }),
    authenticationDate: new Date(ticket.authTime).toISOString(),
    isFromNewLogin: ticket.fromNewLogin,
    longTermAuthenticationRequestTokenUsed: false,
    successfulAuthenticationHandlers: handlers,
  };
}

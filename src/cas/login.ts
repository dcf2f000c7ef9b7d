/**
 * `/cas/login` (Apereo CAS Protocol 3.0 §2.1–§2.2, docs/interface.md#cas-protocol): where the browser goes
 * next. The server answers what needs no page (a ticket for a signed-in user, `gateway`, an unregistered
 * service); everything else is the sign-in page `#/cas`, which signs the user in with the same form, second
 * factor, throttle and shared-computer rules as OAuth and then asks `POST /v1/cas/ticket` for the ticket.
 */
import type { AppContext } from '../app-context.js';
import type { AuditSource } from '../domain/audit.js';
import type { AppRecord, SessionRecord, UserRecord } from '../storage/store.js';
import { findServiceApp } from './services.js';
import { isNewLogin, issueServiceTicket, serviceWithTicket, userMayUseService } from './tickets.js';

export interface CasLoginParams {
  readonly service: string | undefined;
  readonly renew: boolean;
  readonly gateway: boolean;
}

export interface CasSignedIn {
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

export type CasLoginOutcome =
  /** No service: the campus-sso home page (it signs the user in). */
  | { readonly kind: 'home' }
  /** The service is not registered (or its app is disabled): a page says so, never a redirect. */
  | { readonly kind: 'unregistered' }
  /** Back to the service: with a ticket, or (gateway) without. */
  | { readonly kind: 'redirect'; readonly url: string }
  /** The sign-in page. */
  | { readonly kind: 'page'; readonly url: string };

/** The app a `service` parameter belongs to, if it is registered. */
export async function findServiceOwner(ctx: AppContext, service: string): Promise<AppRecord | undefined> {
  return findServiceApp(await ctx.store.apps.list(), service);
}

/** CAS 3.0 §2.1.1 parameters, read as the spec says: `renew` and `gateway` are set by any value but false. */
export function flag(value: string | undefined): boolean {
  return value !== undefined && value.toLowerCase() !== 'false';
}

export async function casLogin(
  ctx: AppContext,
  request: AuditSource,
  signedIn: CasSignedIn | undefined,
  params: CasLoginParams,
): Promise<CasLoginOutcome> {
  if (params.service === undefined || params.service === '') return { kind: 'home' };
  const service = params.service;
  const app = await findServiceOwner(ctx, service);
  if (!app) return { kind: 'unregistered' };
  const now = ctx.clock.now();
  // A user who may not have a ticket (outside allowed_groups, or must change a password first) is told so
  // on the page; an unknown or disabled one signs in there.
  const ready =
    signedIn !== undefined &&
    !signedIn.user.mustChangePassword &&
    userMayUseService(signedIn.user, app, now) &&
    // docs/interface.md#sessions-and-sign-out: on a shared computer the user confirms each app.
    !signedIn.session.shared;
  // §2.1.1 renew: "single sign-on will be bypassed": the password is asked for again, on the page.
  if (ready && !params.renew) {
    const ticket = await issueServiceTicket(ctx, request, {
      session: signedIn.session,
      app,
      service,
      fromNewLogin: await isNewLogin(ctx, signedIn.session),
    });
    return { kind: 'redirect', url: serviceWithTicket(service, ticket) };
  }
  // §2.1.1 gateway: "CAS will not ask the client for credentials": back without a ticket.
  if (params.gateway) return { kind: 'redirect', url: service };
  const query = new URLSearchParams({ service });
  if (params.renew) query.set('renew', 'true');
  return { kind: 'page', url: `${ctx.config.baseUrl}/#/cas?${query.toString()}` };
}

export type PageTicketOutcome =
  | { readonly kind: 'unregistered' }
  | { readonly kind: 'signIn' }
  | { readonly kind: 'notAllowed' }
  | { readonly kind: 'redirect'; readonly url: string };

/**
 * The page's call after the user signed in (or confirmed, on a shared computer): a ticket for `service`.
 * With `renew`, only a sign-in made for this request counts (a new login, §2.1.1).
 */
export async function ticketForPage(
  ctx: AppContext,
  request: AuditSource,
  signedIn: CasSignedIn | undefined,
  params: { readonly service: string; readonly renew: boolean },
): Promise<PageTicketOutcome> {
  const app = await findServiceOwner(ctx, params.service);
  if (!app) return { kind: 'unregistered' };
  if (!signedIn) return { kind: 'signIn' };
  if (!userMayUseService(signedIn.user, app, ctx.clock.now())) return { kind: 'notAllowed' };
  const fromNewLogin = await isNewLogin(ctx, signedIn.session);
  if (params.renew && !fromNewLogin) return { kind: 'signIn' };
  const ticket = await issueServiceTicket(ctx, request, {
    session: signedIn.session,
    app,
    service: params.service,
    fromNewLogin,
  });
  return { kind: 'redirect', url: serviceWithTicket(params.service, ticket) };
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { SessionRecord, UserRecord } from '../storage/store.js';
import { notSignedIn, passwordChangeRequired } from './api-error.js';

/**
 * The session cookie's name. Under an https BASE_URL it carries the `__Host-` prefix (RFC 6265bis §4.1.3.2):
 * the browser then accepts it only with `Secure`, `Path=/` and no `Domain`, so a sibling host of the school's
 * domain cannot plant one (cookie tossing).
 */
export function sessionCookieName(ctx: AppContext): string {
  return ctx.config.secureCookies ? '__Host-campus_sso_session' : 'campus_sso_session';
}

/** At most this many same-named session cookies are looked at; more is never a real browser. */
const MAX_SESSION_COOKIES = 4;

/**
 * Every value the request's Cookie header gives the session cookie, in order. A browser sends two when a
 * cookie of the same name was set for another path or domain (docs/interface.md#sessions-and-sign-out).
 */
export function readSessionCookies(ctx: AppContext, request: FastifyRequest): string[] {
  const header = request.headers.cookie;
  if (!header) return [];
  const name = sessionCookieName(ctx);
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (value !== '' && !values.includes(value)) values.push(value);
    if (values.length === MAX_SESSION_COOKIES) break;
  }
  return values;
}

/** `maxAgeSeconds` undefined: a browser-session cookie, gone when the browser closes. */
function cookieAttributes(ctx: AppContext, maxAgeSeconds: number | undefined): string {
  const secure = ctx.config.secureCookies ? '; Secure' : '';
  const maxAge = maxAgeSeconds === undefined ? '' : `; Max-Age=${maxAgeSeconds}`;
  return `Path=/; HttpOnly; SameSite=Lax${maxAge}${secure}`;
}

/**
 * `maxAgeSeconds`: the session's lifetime, or a pending sign-in's (docs/interface.md#second-factor); null:
 * none, for a shared-computer session, whose cookie ends with the browser (docs/interface.md#sessions-and-sign-out).
 */
export function setSessionCookie(
  ctx: AppContext,
  reply: FastifyReply,
  id: string,
  maxAgeSeconds: number | null = ctx.config.sessionTtl,
): void {
  const maxAge = maxAgeSeconds === null ? undefined : maxAgeSeconds;
  reply.header('set-cookie', `${sessionCookieName(ctx)}=${id}; ${cookieAttributes(ctx, maxAge)}`);
}

export function clearSessionCookie(ctx: AppContext, reply: FastifyReply): void {
  reply.header('set-cookie', `${sessionCookieName(ctx)}=; ${cookieAttributes(ctx, 0)}`);
}

export interface SignedIn {
  readonly id: string;
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

export interface SignedInOptions {
  /**
   * A user whose password must be changed (docs/security.md) gets 403 code 9 from every call but the few
   * that say `'allowed'` here: changing it, asking who is signed in, and signing out.
   */
  readonly pendingPasswordChange?: 'allowed';
}

/**
 * The signed-in user of this request, if any; 403 code 9 if their password must be changed first. With
 * several session cookies (`a=zzz; a=<valid>`), the one that names a live session is used, whatever its
 * position; when more than one does, none is: the request is ambiguous, and signing in again ends them all
 * (docs/interface.md#sessions-and-sign-out).
 */
export async function findSignedIn(
  ctx: AppContext,
  request: FastifyRequest,
  options: SignedInOptions = {},
): Promise<SignedIn | undefined> {
  const signedIn = await findLiveSession(ctx, request);
  if (signedIn && signedIn.user.mustChangePassword && options.pendingPasswordChange !== 'allowed') {
    throw passwordChangeRequired();
  }
  return signedIn;
}

async function findLiveSession(ctx: AppContext, request: FastifyRequest): Promise<SignedIn | undefined> {
  const ids = readSessionCookies(ctx, request);
  if (ids.length === 0) return undefined;
  if (ids.length === 1) {
    const resolved = await ctx.sessions.resolve(ids[0]!);
    return resolved ? { id: ids[0]!, ...resolved } : undefined;
  }
  const live: SignedIn[] = [];
  for (const id of ids) {
    const resolved = await ctx.sessions.resolve(id);
    if (resolved) live.push({ id, ...resolved });
  }
  return live.length === 1 ? live[0] : undefined;
}

/** The signed-in user, or 401 code -1; 403 code 9 if their password must be changed first. */
export async function requireSignedIn(
  ctx: AppContext,
  request: FastifyRequest,
  options: SignedInOptions = {},
): Promise<SignedIn> {
  const signedIn = await findSignedIn(ctx, request, options);
  if (!signedIn) throw notSignedIn();
  return signedIn;
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { SessionRecord, UserRecord } from '../storage/store.js';
import { notSignedIn, passwordChangeRequired } from './api-error.js';

export const SESSION_COOKIE = 'campus_sso_session';

export function readSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookieAttributes(ctx: AppContext, maxAgeSeconds: number): string {
  const secure = ctx.config.secureCookies ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export function setSessionCookie(ctx: AppContext, reply: FastifyReply, id: string): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${id}; ${cookieAttributes(ctx, ctx.config.sessionTtl)}`);
}

export function clearSessionCookie(ctx: AppContext, reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${cookieAttributes(ctx, 0)}`);
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

/** The signed-in user of this request, if any; 403 code 9 if their password must be changed first. */
export async function findSignedIn(
  ctx: AppContext,
  request: FastifyRequest,
  options: SignedInOptions = {},
): Promise<SignedIn | undefined> {
  const id = readSessionCookie(request);
  if (!id) return undefined;
  const resolved = await ctx.sessions.resolve(id);
  if (!resolved) return undefined;
  if (resolved.user.mustChangePassword && options.pendingPasswordChange !== 'allowed') {
    throw passwordChangeRequired();
  }
  return { id, ...resolved };
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

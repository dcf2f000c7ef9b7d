import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { SessionRecord, UserRecord } from '../storage/store.js';
import { notSignedIn } from './api-error.js';

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

/** `maxAgeSeconds` undefined: a browser-session cookie, gone when the browser closes. */
function cookieAttributes(ctx: AppContext, maxAgeSeconds: number | undefined): string {
  const secure = ctx.config.secureCookies ? '; Secure' : '';
  const maxAge = maxAgeSeconds === undefined ? '' : `; Max-Age=${maxAgeSeconds}`;
  return `Path=/; HttpOnly; SameSite=Lax${maxAge}${secure}`;
}

/**
 * A shared-computer session's cookie has no Max-Age: it ends with the browser
 * (docs/interface.md#sessions-and-sign-out).
 */
export function setSessionCookie(
  ctx: AppContext,
  reply: FastifyReply,
  id: string,
  options: { shared?: boolean } = {},
): void {
  const maxAge = options.shared === true ? undefined : ctx.config.sessionTtl;
  reply.header('set-cookie', `${SESSION_COOKIE}=${id}; ${cookieAttributes(ctx, maxAge)}`);
}

export function clearSessionCookie(ctx: AppContext, reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; ${cookieAttributes(ctx, 0)}`);
}

export interface SignedIn {
  readonly id: string;
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

/** The signed-in user of this request, if any. */
export async function findSignedIn(ctx: AppContext, request: FastifyRequest): Promise<SignedIn | undefined> {
  const id = readSessionCookie(request);
  if (!id) return undefined;
  const resolved = await ctx.sessions.resolve(id);
  return resolved ? { id, ...resolved } : undefined;
}

/** The signed-in user, or 401 code -1. */
export async function requireSignedIn(ctx: AppContext, request: FastifyRequest): Promise<SignedIn> {
  const signedIn = await findSignedIn(ctx, request);
  if (!signedIn) throw notSignedIn();
  return signedIn;
}

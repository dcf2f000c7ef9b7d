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

function cookieAttributes(ctx: AppContext, maxAgeSeconds: number): string {
  const secure = ctx.config.secureCookies ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

/** `maxAgeSeconds`: the session's lifetime, or a pending sign-in's (docs/interface.md#second-factor). */
export function setSessionCookie(
  ctx: AppContext,
  reply: FastifyReply,
  id: string,
  maxAgeSeconds = ctx.config.sessionTtl,
): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${id}; ${cookieAttributes(ctx, maxAgeSeconds)}`);
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

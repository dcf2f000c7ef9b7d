import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import type { UserRecord } from '../../../storage/store.js';
import { forbidden } from '../../api-error.js';
import { requireSignedIn } from '../../session-cookie.js';

/** The admin behind each admin request, set by the guard below before any handler runs. */
const signedInAdmins = new WeakMap<FastifyRequest, UserRecord>();

/**
 * The admin API's gate (SPEC §7): not signed in → 401 code -1; signed in but not an admin → 403 code 4.
 * It runs at `onRequest`, before the body is read or validated, so nobody else learns anything from the
 * admin routes' validation messages.
 */
export function requireAdmin(ctx: AppContext): onRequestAsyncHookHandler {
  return async (request) => {
    const { user } = await requireSignedIn(ctx, request);
    if (user.userGroup !== 'admin') throw forbidden('only admins may use the admin API');
    signedInAdmins.set(request, user);
  };
}

/** The signed-in admin making this request (only valid inside the admin plugin). */
export function currentAdmin(request: FastifyRequest): UserRecord {
  const admin = signedInAdmins.get(request);
  if (!admin) throw new Error('currentAdmin() called outside the admin plugin');
  return admin;
}

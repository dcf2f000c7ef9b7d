import { Type } from '@sinclair/typebox';
import { auditEventView } from '../../../domain/audit.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireSignedIn } from '../../session-cookie.js';
import { EnvelopeOf } from '../../response-schemas.js';
import { AuditEventViewSchema } from '../../view-schemas.js';

/** How many of their latest sign-ins (and refused attempts) the account page shows. */
const RECENT_SIGN_INS = 20;

const ActivityAnswers = { 200: EnvelopeOf({ events: Type.Array(AuditEventViewSchema) }) };

/**
 * `GET /v1/account/activity` (docs/interface.md#people-groups-and-audit): the signed-in user's recent sign-ins,
 * including refused attempts on their account, so they notice someone else trying.
 */
export const activityRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/account/activity', { schema: { response: ActivityAnswers } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { user } = await requireSignedIn(ctx, request);
    const events = await ctx.audit.signInsOf(user.uin, RECENT_SIGN_INS);
    return ok({ events: events.map(auditEventView) });
  });
};

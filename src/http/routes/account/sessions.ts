import { Type } from '@sinclair/typebox';
import { sessionView } from '../../../domain/sessions.js';
import { notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { clearSessionCookie, requireSignedIn } from '../../session-cookie.js';
import { EmptyEnvelope, EnvelopeOf } from '../../response-schemas.js';
import { SessionViewSchema } from '../../view-schemas.js';

/** A session's public id: 22 base64url characters (older sessions: 22 hex digits). */
const SessionIdParams = Type.Object(
  { id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) },
  { additionalProperties: false },
);

const SessionsAnswers = { 200: EnvelopeOf({ sessions: Type.Array(SessionViewSchema) }) };

/** The user's own browser sessions, on #/account (docs/interface.md#sessions-and-sign-out). */
export const sessionRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/account/sessions', { schema: { response: SessionsAnswers } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { user, session } = await requireSignedIn(ctx, request);
    const sessions = await ctx.sessions.list(user.uin);
    return ok({ sessions: sessions.map((s) => sessionView(s, session.idHash)) });
  });

  app.delete(
    '/v1/account/sessions/:id',
    { schema: { params: SessionIdParams, response: { 200: EmptyEnvelope } }, config: { csrf: true } },
    async (request, reply) => {
      const { user, session } = await requireSignedIn(ctx, request);
      if (!(await ctx.sessions.endBySid(user.uin, request.params.id))) {
        throw notFound('you have no session with this id');
      }
      if (request.params.id === session.sid) clearSessionCookie(ctx, reply);
      await ctx.audit.recordOwn(request, user.uin, 'session_ended');
      return ok({});
    },
  );
};

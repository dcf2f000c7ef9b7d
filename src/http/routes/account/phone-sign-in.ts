import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { PHONE_SIGN_IN_TTL_MS } from '../../../domain/phone-sign-ins.js';
import { isActiveUser } from '../../../domain/users.js';
import { ApiError, notFound, notSignedIn, tooManyAttempts } from '../../api-error.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireSignedIn } from '../../session-cookie.js';
import { startSignedInSession } from './sign-in-session.js';
import { EmptyEnvelope, Envelope, EnvelopeOf } from '../../response-schemas.js';
import { ReadonlyArray, Timestamp, UserGroupView } from '../../view-schemas.js';
import { PHONE_SIGN_IN, PUBLIC } from '../../openapi/security.js';

/** The computer's secret travels only in this cookie, sent only to these calls. */
const SECRET_COOKIE = 'campus_sso_phone_sign_in';
const COOKIE_PATH = '/v1/account/phone-sign-in';

const IdParams = Type.Object(
  { id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) },
  { additionalProperties: false },
);
const PickBody = Type.Object(
  { number: Type.Integer({ minimum: 0, maximum: 99 }) },
  { additionalProperties: false },
);

const StartAnswers = {
  200: EnvelopeOf(
    { id: Type.String(), number: Type.Integer(), scan_url: Type.String(), expires_at: Timestamp },
    'The request: show scan_url as a QR code, and the number',
  ),
};
const PollAnswers = {
  200: Envelope(
    Type.Union([
      Type.Object(
        { status: Type.Union([Type.Literal('pending'), Type.Literal('failed'), Type.Literal('expired')]) },
        { additionalProperties: false },
      ),
      Type.Object(
        { status: Type.Literal('approved'), uin: Type.Integer(), user_group: UserGroupView },
        { additionalProperties: false },
      ),
    ]),
    'Not yet, over, or approved (this browser is then signed in)',
  ),
};
const PendingAnswers = {
  200: EnvelopeOf({
    ip: Type.Union([Type.String(), Type.Null()]),
    user_agent: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    expires_at: Timestamp,
    choices: ReadonlyArray(Type.Integer()),
  }),
};

function secretCookie(ctx: AppContext, value: string, maxAgeSeconds: number): string {
  const secure = ctx.config.secureCookies ? '; Secure' : '';
  return `${SECRET_COOKIE}=${value}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

function readSecret(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SECRET_COOKIE) {
      const value = part.slice(eq + 1).trim();
      if (/^[A-Za-z0-9_-]{43}$/.test(value)) return value;
    }
  }
  return undefined;
}

/**
 * "Sign in with your phone" (docs/interface.md#sign-in-with-your-phone): the computer's start and poll, the
 * phone's look and pick. Both sides are audited.
 */
export const phoneSignInRoutes: RoutePlugin = async (app, { ctx }) => {
  computerRoutes(app, ctx);
  phoneRoutes(app, ctx);
};

const SECRET_COOKIE_GRACE_MS = 60_000;

/** The computer's side: it starts a request, then polls it. */
function computerRoutes(app: Parameters<RoutePlugin>[0], ctx: AppContext): void {
  // A new request; its secret is set as a cookie only this browser holds.
  app.post(
    '/v1/account/phone-sign-in',
    { schema: { response: StartAnswers, security: PUBLIC }, config: { csrf: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const started = await ctx.phoneSignIns.start(request.ip, request.headers['user-agent']);
      if ('throttled' in started) throw tooManyAttempts(started.retryAfter);
      // The cookie outlives the request by a minute, so the page's poll after expiry reads `expired` (and
      // shows a fresh QR code) instead of losing its secret at the same moment.
      reply.header(
        'set-cookie',
        secretCookie(ctx, started.secret, (PHONE_SIGN_IN_TTL_MS + SECRET_COOKIE_GRACE_MS) / 1000),
      );
      return ok({
        id: started.id,
        number: started.number,
        scan_url: `${ctx.config.baseUrl}/#/scan?c=${started.id}`,
        expires_at: new Date(started.expiresAt).toISOString(),
      });
    },
  );

  // Has a phone approved? Without its secret, nothing.
  app.post(
    '/v1/account/phone-sign-in/poll',
    { schema: { response: PollAnswers, security: PHONE_SIGN_IN }, config: { csrf: true } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const secret = readSecret(request);
      if (secret === undefined) throw notSignedIn('no phone sign-in is waiting in this browser');
      const polled = await ctx.phoneSignIns.poll(secret);
      if (polled.status === 'unknown') throw notSignedIn('no phone sign-in is waiting in this browser');
      if (polled.status !== 'approved') return ok({ status: polled.status });
      const user = await ctx.users.find(polled.uin);
      if (!user || !isActiveUser(user, ctx.clock.now())) return ok({ status: 'failed' });
      reply.header('set-cookie', secretCookie(ctx, '', 0));
      // docs/interface.md#sessions-and-sign-out: a lab computer's session is always a shared-computer one.
      await startSignedInSession(ctx, request, reply, user, { amr: [...polled.amr], shared: true });
      return ok({ status: 'approved', uin: user.uin, user_group: user.userGroup });
    },
  );
}

/** The phone's side: it looks at the request, then picks the number the computer shows. */
function phoneRoutes(app: Parameters<RoutePlugin>[0], ctx: AppContext): void {
  // What the phone is asked to approve.
  app.get(
    '/v1/account/phone-sign-in/:id',
    { schema: { params: IdParams, response: PendingAnswers } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      await requireSignedIn(ctx, request);
      const pending = await ctx.phoneSignIns.findPending(request.params.id);
      if (!pending) throw notFound('this sign-in request is over: scan the new QR code on the computer');
      return ok({
        ip: pending.ip,
        user_agent: pending.userAgent,
        created_at: new Date(pending.createdAt).toISOString(),
        expires_at: new Date(pending.expiresAt).toISOString(),
        choices: pending.choices,
      });
    },
  );

  // The number picked.
  app.post(
    '/v1/account/phone-sign-in/:id/approve',
    {
      schema: { params: IdParams, body: PickBody, response: { 200: EmptyEnvelope } },
      config: { csrf: true },
    },
    async (request) => {
      const { user, session } = await requireSignedIn(ctx, request);
      const outcome = await ctx.phoneSignIns.pick(request.params.id, request.body.number, session);
      await ctx.audit.recordOwn(request, user.uin, 'phone_sign_in_approved', {
        outcome: outcome === 'approved' ? 'success' : 'failure',
        detail: { result: outcome },
      });
      if (outcome === 'gone')
        throw notFound('this sign-in request is over: scan the new QR code on the computer');
      if (outcome === 'wrong') {
        throw new ApiError(
          409,
          EnvelopeCode.Conflict,
          'that is not the number on the computer: the request is ended, for safety',
        );
      }
      return ok({});
    },
  );
}

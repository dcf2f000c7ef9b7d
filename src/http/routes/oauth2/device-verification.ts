import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { appIdentityView } from '../../../domain/apps.js';
import { appTarget } from '../../../domain/audit.js';
import type { CodeLookup } from '../../../domain/device-approvals.js';
import type { DeviceDecisionView, DeviceRequestView } from '../../../shared/views.js';
import type { AppContext } from '../../../app-context.js';
import { forbidden, notFound, tooManyAttempts } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireSignedIn } from '../../session-cookie.js';
import { Envelope } from '../../response-schemas.js';
import { DeviceDecisionViewSchema, DeviceRequestViewSchema } from '../../view-schemas.js';
import { SESSION } from '../../openapi/security.js';

/** A user code as typed: any case, dashes and spaces (the service normalizes it; anything else is wrong). */
const UserCodeField = Type.String({ minLength: 1, maxLength: 64 });

const LookupBody = Type.Object({ user_code: UserCodeField }, { additionalProperties: false });
const DecisionBody = Type.Object(
  { user_code: UserCodeField, allow: Type.Boolean() },
  { additionalProperties: false },
);

const WRONG_CODE = 'this code is unknown, used or expired: check the code on the device screen';

/** Turns a refused lookup into its answer (429 with Retry-After, or 404), audited. */
async function refuse(
  ctx: AppContext,
  request: FastifyRequest,
  uin: number,
  lookup: Exclude<CodeLookup, { kind: 'found' }>,
): Promise<never> {
  await ctx.audit.recordOwn(request, uin, 'device_code_entered', {
    outcome: lookup.kind === 'throttled' ? 'locked' : 'failure',
  });
  if (lookup.kind === 'throttled') throw tooManyAttempts(lookup.retryAfter);
  throw notFound(WRONG_CODE);
}

/**
 * The #/device page's calls (docs/interface.md#device-authorization-grant): look up the request a user code
 * names, then allow or deny it. Signed in only (the second factor done, as every session is), wrong codes
 * throttled per session and per address.
 */
export const deviceVerificationRoutes: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/oauth2/device/lookup',
    {
      schema: { body: LookupBody, response: { 200: Envelope(DeviceRequestViewSchema) }, security: SESSION },
      config: { csrf: true },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { user, session } = await requireSignedIn(ctx, request);
      const lookup = await ctx.deviceApprovals.lookUp(request.body.user_code, {
        sid: session.sid,
        ip: request.ip,
      });
      if (lookup.kind !== 'found') return refuse(ctx, request, user.uin, lookup);
      const { request: device, app: client } = lookup;
      const view: DeviceRequestView = {
        ...appIdentityView(client),
        scope: device.scope,
        requested_at: new Date(device.createdAt).toISOString(),
        ip: device.ip,
        user_agent: device.userAgent,
        expires_at: new Date(device.expiresAt).toISOString(),
      };
      return ok(view);
    },
  );

  app.post(
    '/v1/oauth2/device/decision',
    {
      schema: {
        body: DecisionBody,
        response: { 200: Envelope(DeviceDecisionViewSchema) },
        security: SESSION,
      },
      config: { csrf: true },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const signedIn = await requireSignedIn(ctx, request);
      const { user_code: userCode, allow } = request.body;
      const outcome = await ctx.deviceApprovals.decide(userCode, allow, signedIn, request.ip);
      if (outcome.kind === 'throttled' || outcome.kind === 'wrong') {
        return refuse(ctx, request, signedIn.user.uin, outcome);
      }
      if (outcome.kind === 'not_allowed') {
        await ctx.audit.record({
          action: 'device_approved',
          outcome: 'denied',
          actorUin: signedIn.user.uin,
          target: appTarget(outcome.app.clientId),
          request,
        });
        throw forbidden('you are not in the groups allowed to use this app');
      }
      await ctx.audit.record({
        action: allow ? 'device_approved' : 'device_denied',
        actorUin: signedIn.user.uin,
        target: appTarget(outcome.app.clientId),
        detail: { scope: outcome.request.scope, device_ip: outcome.request.ip },
        request,
      });
      const view: DeviceDecisionView = {
        decision: allow ? 'allowed' : 'denied',
        name: outcome.app.name,
        emoji: outcome.app.emoji,
      };
      return ok(view);
    },
  );
};

import { Type } from '@sinclair/typebox';
import { findServiceOwner, ticketForPage } from '../../../cas/login.js';
import { userMayUseService } from '../../../cas/tickets.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import { EnvelopeCode } from '../../../shared/envelope.js';
import type { CasServiceInfoView } from '../../../shared/views.js';
import { ApiError, forbidden, notSignedIn } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { findSignedIn } from '../../session-cookie.js';
import { Envelope, EnvelopeOf } from '../../response-schemas.js';
import { CasServiceInfoViewSchema } from '../../view-schemas.js';
import { OPTIONAL_SESSION } from '../../openapi/security.js';

const unregistered = (): ApiError =>
  new ApiError(400, EnvelopeCode.InvalidClientOrRedirect, 'the service is not registered for CAS sign-in');

const ServiceQuery = Type.Object(
  { service: Type.String({ maxLength: 2000 }) },
  { additionalProperties: false },
);

const TicketBody = Type.Object(
  { service: Type.String({ maxLength: 2000 }), renew: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

/**
 * The sign-in page's CAS calls (docs/interface.md#cas-protocol): which app a service belongs to, and the
 * ticket once the user has signed in (or confirmed, on a shared computer).
 */
export const casPageRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/v1/cas/service-info',
    {
      schema: {
        querystring: ServiceQuery,
        response: { 200: Envelope(CasServiceInfoViewSchema) },
        security: OPTIONAL_SESSION,
      },
    },
    async (request) => {
      const owner = await findServiceOwner(ctx, request.query.service);
      if (!owner) throw unregistered();
      const signedIn = await findSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });
      const info: CasServiceInfoView = {
        name: owner.name,
        emoji: owner.emoji,
        host: new URL(request.query.service).host,
        ...(signedIn &&
          !userMayUseService(signedIn.user, owner, ctx.clock.now()) && { allowed: false as const }),
        shared_computer: signedIn?.session.shared === true,
      };
      return ok(info);
    },
  );

  app.post(
    '/v1/cas/ticket',
    {
      schema: {
        body: TicketBody,
        response: { 200: EnvelopeOf({ redirect_to: Type.String() }, 'The service URL with its ticket') },
      },
      config: { csrf: true },
    },
    async (request, reply) => {
      const signedIn = await findSignedIn(ctx, request);
      const outcome = await ticketForPage(ctx, request, signedIn, {
        service: request.body.service,
        renew: request.body.renew === true,
      });
      switch (outcome.kind) {
        case 'unregistered':
          throw unregistered();
        case 'signIn':
          throw notSignedIn(request.body.renew === true ? 'sign in again for this app' : 'not signed in');
        case 'notAllowed':
          throw forbidden('your account cannot use this app');
        case 'redirect':
          // The URL carries a fresh ticket: never cache it.
          reply.headers(NO_STORE_HEADERS);
          return ok({ redirect_to: outcome.url });
      }
    },
  );
};

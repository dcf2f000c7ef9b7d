import type { FastifyReply } from 'fastify';
import { casLogin, findServiceOwner, flag } from '../../../cas/login.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { clearSessionCookie, findSignedIn } from '../../session-cookie.js';
import { endPreviousSignIn } from '../account/sign-in-session.js';
import { sendNotice } from './notice-page.js';
import { casQuery, single } from './query.js';
import { LoginAnswers, LogoutAnswers } from './answers.js';
import { OPTIONAL_SESSION } from '../../openapi/security.js';

function redirectNoStore(reply: FastifyReply, url: string): FastifyReply {
  // The URL may carry a fresh ticket: never cache it.
  return reply.headers(NO_STORE_HEADERS).redirect(url, 302);
}

/**
 * docs/interface.md#cas-protocol: `GET /cas/login` (CAS 3.0 §2.1–§2.2) and `GET /cas/logout` (§2.3). An
 * unregistered service gets a page that says so, never a redirect.
 */
export const casLoginRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/cas/login',
    {
      schema: {
        querystring: casQuery('service', 'renew', 'gateway'),
        response: LoginAnswers,
        security: OPTIONAL_SESSION,
      },
    },
    async (request, reply) => {
      const service = single(request.query, 'service');
      const unregistered = (): FastifyReply => {
        request.log.info({ service }, 'CAS login for an unregistered service refused');
        return sendNotice(request, reply, 'unregisteredService', 400, `${ctx.config.baseUrl}/`);
      };
      // A service sent twice is no registered service.
      if (service === null) return unregistered();
      // The password-change rule is the page's to apply: here the user only gets no ticket.
      const signedIn = await findSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });
      const outcome = await casLogin(ctx, request, signedIn, {
        service,
        renew: flag(single(request.query, 'renew') ?? undefined),
        gateway: flag(single(request.query, 'gateway') ?? undefined),
      });
      switch (outcome.kind) {
        case 'home':
          return redirectNoStore(reply, `${ctx.config.baseUrl}/#/`);
        case 'unregistered':
          return unregistered();
        case 'redirect':
        case 'page':
          return redirectNoStore(reply, outcome.url);
      }
    },
  );

  app.get(
    '/cas/logout',
    { schema: { querystring: casQuery('service'), response: LogoutAnswers, security: OPTIONAL_SESSION } },
    async (request, reply) => {
      // Signing out is always allowed, also to a user whose password must be changed first.
      const signedIn = await findSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });
      // Ends the session as POST /v1/account/logout does: its single logouts are queued in the same
      // transaction (docs/interface.md#sessions-and-sign-out).
      await endPreviousSignIn(ctx, request);
      clearSessionCookie(ctx, reply);
      if (signedIn) {
        await ctx.audit.recordOwn(request, signedIn.user.uin, 'sign_out', { detail: { cas: true } });
      }
      const service = single(request.query, 'service');
      // §2.3.1: back to the service only when it is registered; otherwise the page says "You are signed out".
      if (service && (await findServiceOwner(ctx, service))) return redirectNoStore(reply, service);
      return sendNotice(request, reply, 'signedOut', 200, `${ctx.config.baseUrl}/`);
    },
  );
};

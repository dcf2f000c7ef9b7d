import type { AppContext } from '../../../app-context.js';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import {
  askingClientId,
  endSessionRefusal,
  type EndSessionParams,
  postLogoutRedirect,
  verifyIdTokenHint,
} from '../../../oauth/end-session.js';
import { END_SESSION_PARAMETERS } from '../../../shared/logout.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';
import { clearSessionCookie, findSignedIn } from '../../session-cookie.js';
import { Redirect } from '../../response-schemas.js';
import { OPTIONAL_SESSION, PUBLIC } from '../../openapi/security.js';

/** RP-Initiated Logout 1.0 §2: known parameters are strings sent once; others are ignored. */
const EndSessionQuery = Type.Object(
  { ...optional(Type.String(), ...END_SESSION_PARAMETERS) },
  { additionalProperties: true },
);

/** The page's query: the request's parameters the page needs, without the hint. */
function pageQuery(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * docs/interface.md#sessions-and-sign-out: OpenID Connect RP-Initiated Logout 1.0 at the metadata's
 * `end_session_endpoint`. A request that cannot be trusted (see `endSessionRefusal`) is shown as an error
 * on the page `#/logout?error=…`. With a valid id_token_hint for the signed-in user the session ends at once;
 * otherwise the page asks the user. The browser goes back to the app only to a registered
 * post_logout_redirect_uri.
 */
export const endSessionRoutes: RoutePlugin = async (app, { ctx }) => {
  const toPage = (reply: FastifyReply, query: Record<string, string | undefined>): FastifyReply =>
    reply.redirect(`${ctx.config.baseUrl}/#/logout${pageQuery(query)}`, 302);

  app.get(
    '/v1/oauth2/logout',
    {
      schema: {
        querystring: EndSessionQuery,
        response: {
          302: Redirect(
            'To the registered post_logout_redirect_uri, or to the page #/logout (to ask, to say why the ' +
              'request was refused, or that the user is signed out)',
          ),
        },
        security: OPTIONAL_SESSION,
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const params: EndSessionParams = request.query;
      const hint = await verifyIdTokenHint(ctx, params.id_token_hint);
      const locales = params.ui_locales;
      // docs/security.md: a request that is not what it claims (a bad hint, a hint of another app, a return
      // address not registered) signs nobody out and sends the browser nowhere; the page says why.
      const refusal = await endSessionRefusal(ctx, params, hint);
      if (refusal !== undefined) {
        request.log.info({ refusal, client_id: params.client_id }, 'logout request refused');
        return toPage(reply, { error: refusal, ui_locales: locales });
      }
      const clientId = askingClientId(params, hint);
      const redirectTo = await postLogoutRedirect(ctx, clientId, params);
      // Signing out is always allowed, also to a user whose password must be changed first (docs/security.md).
      const signedIn = await findSignedIn(ctx, request, { pendingPasswordChange: 'allowed' });

      if (signedIn && hint?.sub === String(signedIn.user.uin)) {
        // §2: the RP proved which user it signs out: no need to ask.
        await ctx.sessions.end(signedIn.id);
        clearSessionCookie(ctx, reply);
        request.log.info({ uin: signedIn.user.uin, client_id: clientId }, 'signed out by the app');
        await ctx.audit.recordOwn(request, signedIn.user.uin, 'sign_out', {
          detail: { client_id: clientId ?? null },
        });
      } else if (signedIn) {
        // §2: without a valid hint the OP asks the user whether to sign out (and of whom).
        return toPage(reply, {
          client_id: clientId,
          post_logout_redirect_uri: redirectTo && params.post_logout_redirect_uri,
          state: redirectTo && params.state,
          ui_locales: locales,
        });
      }
      if (redirectTo) return reply.redirect(redirectTo, 302);
      return toPage(reply, { done: '1', ui_locales: locales });
    },
  );

  addFormPostRoute(app, ctx);
};

// §2: POST with a form body is allowed too. A cross-site form post carries no SameSite=Lax cookie, so the
// request goes on as a GET, which does.
function addFormPostRoute(app: Parameters<RoutePlugin>[0], ctx: AppContext): void {
  app.post(
    '/v1/oauth2/logout',
    {
      schema: {
        body: EndSessionQuery,
        consumes: ['application/x-www-form-urlencoded'],
        response: { 303: Redirect('The same request as a GET') },
        security: PUBLIC,
      },
    },
    async (request, reply) => {
      const body = request.body;
      const search = new URLSearchParams();
      for (const key of END_SESSION_PARAMETERS) {
        const value = body[key];
        if (value !== undefined) search.set(key, value);
      }
      const query = search.toString();
      reply.header('cache-control', 'no-store');
      return reply.redirect(`${ctx.config.baseUrl}/v1/oauth2/logout${query ? `?${query}` : ''}`, 303);
    },
  );
}

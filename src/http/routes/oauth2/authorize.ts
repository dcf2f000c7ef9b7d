import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../app-context.js';
import { decideAuthorization, type Decision } from '../../../oauth/authorization/authorize.js';
import type { AuthorizationParams } from '../../../oauth/authorization/request.js';
import {
  type AuthorizationResponse,
  errorResponse,
  responseUrl,
} from '../../../oauth/authorization/response.js';
import { loadFormPostBox, openResponse, sealResponse } from '../../../oauth/authorization/sealed-response.js';
import {
  AUTHORIZATION_PARAMETERS,
  MAX_NONCE_LENGTH,
  MAX_STATE_LENGTH,
} from '../../../shared/authorization.js';
import {
  RedirectableAuthorizationError,
  validateAuthorizationRequest,
} from '../../../oauth/authorization/validate.js';
import { InvalidClientOrRedirect } from '../../../oauth/errors.js';
import { NO_STORE_HEADERS } from '../../../oauth/tokens.js';
import type { SecretBox } from '../../../domain/secret-box.js';
import { notSignedIn } from '../../api-error.js';
import { forbidden } from '../../api-error.js';
import { sendAuthorizationResponse, sendFormPost } from '../../authorization-response.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { lenientQuery, optional } from '../../schemas.js';
import { findSignedIn, type SignedIn } from '../../session-cookie.js';
import { EnvelopeOf, ErrorEnvelope, HtmlPage, Redirect } from '../../response-schemas.js';
import { OPTIONAL_SESSION, PUBLIC } from '../../openapi/security.js';

/**
 * The authorization request's parameters as the page passes them through. RFC 6749 §3.1: unrecognized
 * parameters MUST be ignored, so other fields are allowed; known ones must be strings, sent once.
 */
const AuthorizeBody = Type.Object(
  {
    ...optional(Type.String(), ...AUTHORIZATION_PARAMETERS),
    scope: Type.Optional(Type.String({ maxLength: 1024 })),
    // First filters; the pipeline enforces both on every path (check-nonce.ts, check-state.ts).
    nonce: Type.Optional(Type.String({ maxLength: MAX_NONCE_LENGTH })),
    state: Type.Optional(Type.String({ maxLength: MAX_STATE_LENGTH })),
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    // Set by the page when it answers for the user from a remembered consent, without a click.
    remembered: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

/** OIDC Core §3.1.2.1: the same request as a form POST; any field, each a string or repeated strings. */
const AuthorizeForm = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]));

type PageCall = AuthorizationParams & { readonly decision: Decision; readonly remembered?: boolean };
type FormRequest = Readonly<Record<string, string | readonly string[]>>;

/** The known parameters of a query string; a repeated one counts with its first value, as on the page. */
function parametersOf(query: URLSearchParams): AuthorizationParams {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = query.get(name);
    if (value !== null) params[name] = value;
  }
  return params;
}

/**
 * The GET request, answered on the server when no page is needed: an error the app must hear about
 * (RFC 6749 §4.1.2.1, after the client and redirect URI are known good), or prompt=none (OIDC Core
 * §3.1.2.1: no page, ever). Everything else goes to the page with the same query, byte for byte.
 */
async function answerWithoutPage(
  ctx: AppContext,
  signedIn: () => Promise<SignedIn | undefined>,
  params: AuthorizationParams,
): Promise<AuthorizationResponse | undefined> {
  try {
    const request = await validateAuthorizationRequest(ctx, params);
    if (!request.prompt.has('none')) return undefined;
  } catch (error) {
    if (error instanceof RedirectableAuthorizationError) {
      return errorResponse(ctx, error.redirect, error.error);
    }
    // The page shows this one to the user and never redirects (RFC 6749 §4.1.2.1).
    if (error instanceof InvalidClientOrRedirect) return undefined;
    throw error;
  }
  const outcome = await decideAuthorization(ctx, (await signedIn())?.session, params, 'allow');
  return 'response' in outcome ? outcome.response : undefined;
}

/**
 * The GET request's parameters (docs/interface.md#authorization-page), read from the raw query string so the
 * page gets them byte for byte; listed here for the document, never refused here.
 */
const AuthorizeQuery = lenientQuery(...AUTHORIZATION_PARAMETERS);

const AuthorizeAnswers = {
  200: HtmlPage('response_mode=form_post: the self-submitting form that posts the answer to the app'),
  302: Redirect(
    'To the authorization page with the same query, or, when no page is needed (an error for the app, ' +
      'prompt=none), to the redirect URI with the code or the error',
  ),
};

/** The sealed form_post response of the page's call (src/oauth/authorization/sealed-response.ts). */
const SealedQuery = Type.Object(
  { response: Type.String({ minLength: 1, maxLength: 16_384 }) },
  { additionalProperties: true },
);

/** Shown when a sealed form_post response is expired or damaged: nothing is posted to the app. */
const EXPIRED_FORM_POST_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Link expired</title></head>
<body><p>This sign-in answer has expired or is not valid. Go back to the app and sign in again.</p></body>
</html>
`;

function redirectNoStore(reply: FastifyReply, url: string, status: 302 | 303): FastifyReply {
  // The URL may carry a fresh code: never cache it (RFC 6749 §10.5). No CORS headers (RFC 9700 §2).
  return reply.headers(NO_STORE_HEADERS).redirect(url, status);
}

/**
 * docs/interface.md#authorization-page: `GET /v1/oauth2/authorize` (the metadata's authorization_endpoint)
 * hands the browser to the page, or answers the app itself when no page is needed; a form POST is the same
 * request (OIDC Core §3.1.2.1); a JSON `POST /v1/oauth2/authorize` is the page's call that turns the user's
 * decision into the redirect URL.
 */
export const authorizeRoutes: RoutePlugin = async (app, { ctx }) => {
  let formPostBox: Promise<SecretBox> | undefined;
  /** The box that seals form_post responses for their page, loaded at first use. */
  const box = (): Promise<SecretBox> =>
    (formPostBox ??= loadFormPostBox(ctx.config.secretKey).catch((error: unknown) => {
      formPostBox = undefined;
      throw error;
    }));
  authorizationRequestRoute(app, ctx);
  formPostRoute(app, ctx, box);
  pageCallRoute(app, ctx, box);
};

type AuthorizeApp = Parameters<RoutePlugin>[0];

/** `GET /v1/oauth2/authorize`: the app itself is answered, or the browser goes to the page. */
function authorizationRequestRoute(app: AuthorizeApp, ctx: AppContext): void {
  app.get(
    '/v1/oauth2/authorize',
    { schema: { querystring: AuthorizeQuery, response: AuthorizeAnswers, security: OPTIONAL_SESSION } },
    async (request, reply) => {
      const queryStart = request.url.indexOf('?');
      const query = queryStart === -1 ? '' : request.url.slice(queryStart);
      const direct = await answerWithoutPage(
        ctx,
        () => findSignedIn(ctx, request),
        parametersOf(new URLSearchParams(query)),
      );
      if (direct) return sendAuthorizationResponse(reply, direct);
      // The same parameters, byte for byte, in the page's fragment query.
      return redirectNoStore(reply, `${ctx.config.baseUrl}/#/auth${query}`, 302);
    },
  );
}

/** docs/interface.md#response-modes: the form_post response of the page's call, opened and posted. */
function formPostRoute(app: AuthorizeApp, ctx: AppContext, box: () => Promise<SecretBox>): void {
  app.get(
    '/v1/oauth2/authorize/form-post',
    {
      schema: {
        querystring: SealedQuery,
        response: {
          200: HtmlPage('The self-submitting form that posts the answer to the app'),
          // Without a `response` parameter the query is refused before the handler, in the envelope.
          400: {
            description:
              'The answer expired or is damaged: a page, nothing is posted; no `response`: an error in the envelope',
            content: {
              ...HtmlPage('').content,
              'application/json': { schema: ErrorEnvelope },
            },
          },
        },
        security: PUBLIC,
      },
    },
    async (request, reply) => {
      const response = openResponse(await box(), request.query.response, ctx.clock.now());
      if (response) return sendFormPost(reply, response);
      return reply
        .code(400)
        .headers(NO_STORE_HEADERS)
        .type('text/html; charset=utf-8')
        .send(EXPIRED_FORM_POST_PAGE);
    },
  );
}

/**
 * `POST /v1/oauth2/authorize`: the page's call (JSON), which turns the user's decision into where the browser
 * goes, or a form POST of the authorization request.
 */
function pageCallRoute(app: AuthorizeApp, ctx: AppContext, box: () => Promise<SecretBox>): void {
  /** The URL the page sends the browser to: the query response itself, or the page of a form_post one. */
  const pageTarget = async (response: AuthorizationResponse): Promise<string> => {
    if (response.responseMode === 'query') return responseUrl(response);
    const sealed = sealResponse(await box(), response, ctx.clock.now());
    return `${ctx.config.baseUrl}/v1/oauth2/authorize/form-post?${new URLSearchParams({ response: sealed })}`;
  };

  app.post(
    '/v1/oauth2/authorize',
    {
      schema: {
        body: {
          content: {
            'application/json': { schema: AuthorizeBody },
            'application/x-www-form-urlencoded': { schema: AuthorizeForm },
          },
        },
        response: {
          200: EnvelopeOf(
            { redirect_to: Type.String() },
            "The page's call (JSON): where the browser goes, with the code or the error",
          ),
          303: Redirect('A form POST (OIDC Core §3.1.2.1): the same request as a GET'),
        },
        security: OPTIONAL_SESSION,
      },
      config: { csrf: 'json-only' },
    },
    async (request, reply) => {
      const contentType = request.headers['content-type'] ?? '';
      if (/^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
        // OIDC Core §3.1.2.1: a form POST is served like the GET. A cross-site POST carries no SameSite=Lax
        // session cookie, so it becomes that GET (303, RFC 9110 §15.4.4), where the cookie is sent.
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(request.body as FormRequest)) {
          for (const one of typeof value === 'string' ? [value] : value) query.append(name, one);
        }
        const search = query.size === 0 ? '' : `?${query.toString()}`;
        return redirectNoStore(reply, `${ctx.config.baseUrl}/v1/oauth2/authorize${search}`, 303);
      }
      const { decision, remembered, ...params } = request.body as PageCall;
      const signedIn = await findSignedIn(ctx, request);
      // docs/interface.md#sessions-and-sign-out: on a shared computer the user confirms each app; a remembered
      // consent is never used silently.
      if (remembered === true && decision === 'allow' && signedIn?.session.shared === true) {
        throw forbidden('on a shared computer, confirm this app first');
      }
      const outcome = await decideAuthorization(ctx, signedIn?.session, params, decision);
      // The page shows the sign-in form, then calls again (prompt=login, max_age: OIDC Core §3.1.2.1).
      if (!('response' in outcome)) throw notSignedIn();
      // The URL carries a fresh code: never cache it (RFC 6749 §10.5 keeps codes confidential).
      reply.headers(NO_STORE_HEADERS);
      return ok({ redirect_to: await pageTarget(outcome.response) });
    },
  );
}

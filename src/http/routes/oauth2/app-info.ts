import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.js';
import { appIdentityView } from '../../../domain/apps.js';
import { userMayUseApp } from '../../../oauth/authorization/authorize.js';
import { checkClient } from '../../../oauth/authorization/check-client.js';
import type { AuthorizationParams } from '../../../oauth/authorization/request.js';
import { errorResponse, responseUrl } from '../../../oauth/authorization/response.js';
import {
  RedirectableAuthorizationError,
  validateAuthorizationRequest,
} from '../../../oauth/authorization/validate.js';
import { AUTHORIZATION_PARAMETERS } from '../../../shared/authorization.js';
import { grantedScope, consentCovers, hasScope } from '../../../oauth/scopes.js';
import type { AppInfoView, AuthorizationRequestError } from '../../../shared/views.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';
import { findSignedIn } from '../../session-cookie.js';
import { Envelope } from '../../response-schemas.js';
import { AppInfoViewSchema } from '../../view-schemas.js';
import { OPTIONAL_SESSION } from '../../openapi/security.js';

const AppInfoQuery = Type.Object(
  {
    // scope: the one the app asks for now; a remembered consent counts only if it covers all of it. The
    // other parameters of the request are checked so that an error is shown before sign-in.
    ...optional(Type.String(), ...AUTHORIZATION_PARAMETERS),
  },
  { additionalProperties: true },
);

/** The supported scope values asked for; a malformed scope shows the consent card (and then fails there). */
function requestedScope(scope: string | undefined): string | null {
  try {
    return grantedScope(scope === '' ? undefined : scope);
  } catch {
    return 'malformed';
  }
}

/**
 * The error the authorization request pipeline would send back to the app for the rest of the request, if
 * any (docs/interface.md#browser-session-api): the same checks, in the same order, as the request itself.
 */
async function requestError(
  ctx: AppContext,
  params: AuthorizationParams,
): Promise<AuthorizationRequestError | undefined> {
  try {
    await validateAuthorizationRequest(ctx, params);
    return undefined;
  } catch (error) {
    if (!(error instanceof RedirectableAuthorizationError)) throw error;
    const response = errorResponse(ctx, error.redirect, error.error);
    // A form_post answer cannot be a URL: the authorization endpoint, asked the same request, posts it itself.
    const sent = Object.entries(params).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
    return {
      error: error.error.error,
      error_description: error.error.description,
      redirect_to:
        response.responseMode === 'query'
          ? responseUrl(response)
          : `${ctx.config.baseUrl}/v1/oauth2/authorize?${new URLSearchParams(sent)}`,
    };
  }
}

/**
 * What the consent page shows (docs/interface.md#browser-session-api). The same first check as the
 * authorization request: an unknown or disabled client, or an unregistered redirect URI, is 400 code 3 (no
 * redirect, RFC 6749 §4.1.2.1). Works without a session; `consented` is true only for a signed-in user who
 * already authorized the app, and
 * `shared_computer` tells the page to ask anyway (docs/interface.md#sessions-and-sign-out).
 */
export const appInfoRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/v1/oauth2/app-info',
    {
      schema: {
        querystring: AppInfoQuery,
        response: { 200: Envelope(AppInfoViewSchema, 'What the consent page shows') },
        security: OPTIONAL_SESSION,
      },
    },
    async (request) => {
      const { app: client } = await checkClient(ctx, request.query);
      const signedIn = await findSignedIn(ctx, request);
      const consent = signedIn && (await ctx.consents.find(signedIn.user.uin, client.clientId));
      const consented =
        consent !== undefined && consentCovers(consent.scope, requestedScope(request.query.scope));
      const info: AppInfoView = {
        ...appIdentityView(client),
        consented,
        // docs/interface.md#people-groups-and-audit: said only when false, so the page can explain.
        ...(signedIn && !userMayUseApp(signedIn.user, client) && { allowed: false as const }),
        shared_computer: signedIn?.session.shared === true,
      };
      const invalid = await requestError(ctx, request.query);
      // OIDC Core §11: offline_access gets a refresh token (when the app may have them); the consent screen
      // says how long the app can then stay signed in.
      const staysSignedIn =
        client.allowRefreshTokens && hasScope(requestedScope(request.query.scope), 'offline_access');
      return ok({
        ...info,
        ...(staysSignedIn && { stays_signed_in_days: Math.round(ctx.config.refreshTokenTtl / 86_400) }),
        ...(invalid && { request_error: invalid }),
      });
    },
  );
};

/**
 * The user's decision on a valid authorization request (docs/interface.md#authorization-page): the response
 * for the client (src/oauth/authorization/response.ts), or "the user must sign in (again) first".
 */
import { consentCovers, mergeScopes } from '../scopes.js';
import type { AppContext } from '../../app-context.js';
import { appTarget } from '../../domain/audit.js';
import { groupsAllow } from '../../shared/people.js';
import { credentialKey, newCredential } from '../credentials.js';
import type { AppRecord, ConsentRecord, SessionRecord, UserRecord } from '../../storage/store.js';
import { AccessDenied, ConsentRequired, LoginRequired } from '../errors.js';
import { asksForNoPrompt } from './check-prompt.js';
import type { AuthorizationParams, AuthorizationRequest } from './request.js';
import { type AuthorizationResponse, codeResponse, errorResponse } from './response.js';
import { RedirectableAuthorizationError, validateAuthorizationRequest } from './validate.js';

/** The user's answer on the consent screen (with prompt=none, `allow` means "if already consented"). */
export type Decision = 'allow' | 'deny';

/** The response for the client, or that the user has to sign in (again) before anything is decided. */
export type AuthorizationOutcome = { readonly response: AuthorizationResponse } | { readonly signIn: true };

const SIGN_IN: AuthorizationOutcome = { signIn: true };

/**
 * How long a sign-in still counts as the one `prompt=login` asked for: the time to read the consent screen
 * that follows it.
 */
const FRESH_SIGN_IN_MS = 5 * 60_000;

/**
 * OIDC Core §3.1.2.1 `prompt=login` and `max_age`: whether the session is too old for this request.
 * `prompt=login` (and `max_age=0`, its equivalent) wants a sign-in made for this request: one after the app
 * was last authorized for this user, and recent. `max_age=N` wants one at most N seconds old.
 */
function needsSignIn(
  request: AuthorizationRequest,
  session: SessionRecord,
  consent: ConsentRecord | undefined,
  now: number,
): boolean {
  const age = now - session.createdAt;
  if (request.prompt.has('login') || request.maxAge === 0) {
    const signedInSinceLastAuthorization = consent === undefined || session.createdAt > consent.grantedAt;
    return !(signedInSinceLastAuthorization && age <= FRESH_SIGN_IN_MS);
  }
  return request.maxAge !== null && age > request.maxAge * 1000;
}

/**
 * Whether the user is in one of the app's allowed groups (an app that names none is open to everyone):
 * the rule of docs/interface.md#people-groups-and-audit, for a user already read.
 */
export function userMayUseApp(user: Pick<UserRecord, 'groups'>, app: AppRecord): boolean {
  return groupsAllow(app.allowedGroups, user.groups);
}

/** {@link userMayUseApp} for a uin; the user is read only when the app names groups. */
export async function mayUseApp(ctx: AppContext, uin: number, app: AppRecord): Promise<boolean> {
  if (app.allowedGroups.length === 0) return true;
  const user = await ctx.store.users.find(uin);
  return user !== undefined && userMayUseApp(user, app);
}

/** RFC 6749 §4.1.2: issues a code (stored under its key only) and records the user's consent. */
async function issueCode(
  ctx: AppContext,
  session: SessionRecord,
  request: AuthorizationRequest,
  previous: ConsentRecord | undefined,
): Promise<string> {
  const now = ctx.clock.now();
  const code = newCredential(now);
  await ctx.store.codes.insert({
    codeHash: credentialKey(code),
    clientId: request.app.clientId,
    uin: session.uin,
    redirectUri: request.redirectUri,
    scope: request.scope,
    nonce: request.nonce,
    codeChallenge: request.pkce?.codeChallenge ?? null,
    codeChallengeMethod: request.pkce?.codeChallengeMethod ?? null,
    // OIDC Core §2 auth_time: when the user signed in, not when they clicked.
    authTime: session.createdAt,
    // OIDC Core §2 amr: how the user signed in, carried to the id_token (RFC 8176).
    amr: session.amr,
    createdAt: now,
    // RFC 6749 §4.1.2: "A maximum authorization code lifetime of 10 minutes is RECOMMENDED."
    expiresAt: now + ctx.config.authorizationCodeTtl * 1000,
    usedAt: null,
    // OpenID Connect Back-Channel Logout 1.0 §2.1: the id_token names the session it was issued in.
    sid: session.sid,
  });
  // docs/interface.md#authorization-page: a later request from this app is answered without asking again —
  // for what the user has approved so far, so the consent grows with each approval and never silently
  // covers a wider scope.
  await ctx.store.consents.upsert({
    uin: session.uin,
    clientId: request.app.clientId,
    scope: mergeScopes(previous?.scope ?? null, request.scope),
    grantedAt: now,
  });
  // Audited when the user approved something new, not at each silent return of a remembered consent.
  if (!previous || !consentCovers(previous.scope, request.scope)) {
    await ctx.audit.record({
      action: 'consent_given',
      actorUin: session.uin,
      target: appTarget(request.app.clientId),
      detail: { scope: request.scope },
    });
  }
  return code;
}

/**
 * Validates the request and applies the decision. Answers the response for the client (with `code`, or with
 * `error`) or that the user must sign in first; throws `InvalidClientOrRedirect` when no redirect is allowed.
 * With `prompt=none` nothing is ever shown to the user (OIDC Core §3.1.2.1): every outcome is a redirect.
 */
export async function decideAuthorization(
  ctx: AppContext,
  session: SessionRecord | undefined,
  params: AuthorizationParams,
  decision: Decision,
): Promise<AuthorizationOutcome> {
  // Signed out: sign in first, as always — unless prompt=none forbids any page, so the request is answered.
  if (!session && !asksForNoPrompt(params)) return SIGN_IN;
  let request: AuthorizationRequest;
  try {
    request = await validateAuthorizationRequest(ctx, params);
  } catch (error) {
    if (error instanceof RedirectableAuthorizationError) {
      return { response: errorResponse(ctx, error.redirect, error.error) };
    }
    throw error;
  }
  const noPrompt = request.prompt.has('none');
  // OIDC Core §3.1.2.6 login_required: "The Authorization Server requires End-User authentication."
  if (!session)
    return { response: errorResponse(ctx, request, new LoginRequired('the user is not signed in')) };

  const consent = await ctx.store.consents.find(session.uin, request.app.clientId);
  if (needsSignIn(request, session, consent, ctx.clock.now())) {
    if (!noPrompt) return SIGN_IN;
    return {
      response: errorResponse(ctx, request, new LoginRequired('the user must sign in again (max_age)')),
    };
  }
  // RFC 6749 §4.1.2.1 access_denied: "The resource owner … denied the request."
  if (decision === 'deny') {
    return { response: errorResponse(ctx, request, new AccessDenied('the user denied the request')) };
  }
  // docs/interface.md#people-groups-and-audit: an app open only to some groups refuses everyone else.
  if (!(await mayUseApp(ctx, session.uin, request.app))) {
    const error = new AccessDenied('this account is not in a group that may use this app');
    return { response: errorResponse(ctx, request, error) };
  }
  // OIDC Core §3.1.2.6 consent_required: prompt=none, and the user has not yet approved all of this.
  if (noPrompt && !(consent && consentCovers(consent.scope, request.scope))) {
    return {
      response: errorResponse(
        ctx,
        request,
        new ConsentRequired('the user has not authorized this app for the requested scope'),
      ),
    };
  }
  // docs/interface.md#sessions-and-sign-out: on a shared computer each app is confirmed with a click, so
  // prompt=none, which allows no page, cannot be answered with a code.
  if (noPrompt && session.shared) {
    return {
      response: errorResponse(
        ctx,
        request,
        new ConsentRequired('on a shared computer each app must be confirmed by the user'),
      ),
    };
  }
  const code = await issueCode(ctx, session, request, consent);
  return { response: codeResponse(ctx, request, code) };
}

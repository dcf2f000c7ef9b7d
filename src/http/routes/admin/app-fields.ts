/**
 * The fields of an app in the admin API (docs/interface.md#admin-api): their schemas and their checks.
 */
import { Type } from '@sinclair/typebox';
import type { AppChanges } from '../../../domain/apps.js';
import type { AppRecord } from '../../../storage/store.js';
import { isSingleEmoji } from '../../../domain/emoji.js';
import {
  backchannelLogoutUriProblem,
  postLogoutRedirectUrisProblem,
  redirectUriProblemMessage,
  redirectUriListProblemMessage,
} from '../../../domain/redirect-uris.js';
import { casServicesProblem } from '../../../cas/services.js';
import { appNameProblem, normalizedAppName } from '../../../shared/apps.js';
import { badRequest } from '../../api-error.js';
import { GroupListSchema, checkedGroups } from './people.js';

/** The app-name rule (src/shared/apps.ts); AppService enforces it again, whatever the path. */
export function checkedName(name: string): string {
  const problem = appNameProblem(name);
  if (problem) throw badRequest(problem);
  return normalizedAppName(name);
}

export function checkedEmoji(emoji: string): string {
  if (!isSingleEmoji(emoji)) throw badRequest('emoji must be exactly one emoji');
  return emoji;
}

/** A launcher tile's address follows the redirect URI rules: https (http only for loopback), no fragment. */
export function checkedHomepageUrl(url: string | null): string | null {
  if (url === null || url.trim() === '') return null;
  const problem = redirectUriProblemMessage(url.trim());
  if (problem) throw badRequest(`homepage_url ${problem}`);
  return url.trim();
}

/**
 * An app that registers CAS services (docs/interface.md#cas-protocol), uses the device grant
 * (docs/interface.md#device-authorization-grant) or client_credentials
 * (docs/interface.md#service-accounts-client-credentials) may register no redirect URI.
 */
export function checkedRedirectUris(uris: readonly string[], noneNeeded = false): string[] {
  const problem = redirectUriListProblemMessage(uris, noneNeeded);
  if (problem) throw badRequest(problem);
  return [...uris];
}

export function checkedCasServices(urls: readonly string[]): string[] {
  const problem = casServicesProblem(urls);
  if (problem) throw badRequest(problem);
  return [...urls];
}

export function checkedPostLogoutRedirectUris(uris: readonly string[]): string[] {
  const problem = postLogoutRedirectUrisProblem(uris);
  if (problem) throw badRequest(problem);
  return [...uris];
}

/** An empty string or null removes it. */
export function checkedBackchannelLogoutUri(uri: string | null): string | null {
  if (uri === null || uri === '') return null;
  const problem = backchannelLogoutUriProblem(uri);
  if (problem) throw badRequest(problem);
  return uri;
}

/** docs/interface.md#sessions-and-sign-out: where the app's users go after signing out, and its back channel. */
const LOGOUT_FIELDS = {
  post_logout_redirect_uris: Type.Optional(Type.Array(Type.String())),
  backchannel_logout_uri: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

/** The optional settings an app may be registered with and later changed: access groups, sign-out, launcher. */
const APP_SETTINGS = {
  allowed_groups: Type.Optional(GroupListSchema),
  ...LOGOUT_FIELDS,
  listed: Type.Optional(Type.Boolean()),
  homepage_url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  // docs/interface.md#cas-protocol: the app's CAS service URLs.
  cas_services: Type.Optional(Type.Array(Type.String())),
  device_grant: Type.Optional(Type.Boolean()),
  // docs/interface.md#service-accounts-client-credentials: RFC 6749 §4.4; AppService checks the scopes.
  client_credentials: Type.Optional(Type.Boolean()),
  allowed_scopes: Type.Optional(Type.Array(Type.String())),
};

export const NewAppBody = Type.Object(
  {
    name: Type.String(),
    emoji: Type.String(),
    // Optional only for an app that registers CAS services or uses the device grant instead.
    redirect_uris: Type.Optional(Type.Array(Type.String())),
    ...APP_SETTINGS,
  },
  { additionalProperties: false },
);

export const AppChangesBody = Type.Object(
  {
    name: Type.Optional(Type.String()),
    emoji: Type.Optional(Type.String()),
    redirect_uris: Type.Optional(Type.Array(Type.String())),
    disabled: Type.Optional(Type.Boolean()),
    allow_refresh_tokens: Type.Optional(Type.Boolean()),
    ...APP_SETTINGS,
  },
  { additionalProperties: false },
);

type AppChangesBody = typeof AppChangesBody.static;

/** The changes a `PATCH` body asks for, each checked; empty when it asks for none. */
export function appChangesFrom(body: AppChangesBody): AppChanges {
  return {
    ...(body.name !== undefined && { name: checkedName(body.name) }),
    ...(body.emoji !== undefined && { emoji: checkedEmoji(body.emoji) }),
    ...(body.redirect_uris !== undefined && { redirectUris: [...body.redirect_uris] }),
    ...(body.cas_services !== undefined && { casServices: checkedCasServices(body.cas_services) }),
    ...(body.device_grant !== undefined && { deviceGrant: body.device_grant }),
    ...(body.client_credentials !== undefined && { clientCredentials: body.client_credentials }),
    ...(body.allowed_scopes !== undefined && { allowedScopes: body.allowed_scopes }),
    ...(body.disabled !== undefined && { disabled: body.disabled }),
    ...(body.allow_refresh_tokens !== undefined && { allowRefreshTokens: body.allow_refresh_tokens }),
    ...(body.allowed_groups !== undefined && {
      allowedGroups: checkedGroups(body.allowed_groups, 'allowed_groups'),
    }),
    ...(body.post_logout_redirect_uris !== undefined && {
      postLogoutRedirectUris: checkedPostLogoutRedirectUris(body.post_logout_redirect_uris),
    }),
    ...(body.backchannel_logout_uri !== undefined && {
      backchannelLogoutUri: checkedBackchannelLogoutUri(body.backchannel_logout_uri),
    }),
    ...(body.listed !== undefined && { listed: body.listed }),
    ...(body.homepage_url !== undefined && { homepageUrl: checkedHomepageUrl(body.homepage_url) }),
  };
}

/** Whether the change could leave an app with no redirect URI that needs one. */
export function touchesRedirectRule(body: AppChangesBody): boolean {
  return (
    body.redirect_uris !== undefined ||
    body.device_grant === false ||
    body.client_credentials === false ||
    body.cas_services !== undefined
  );
}

/**
 * One rule: no redirect URI only for an app with CAS services, the device grant or client_credentials, after
 * the change too.
 */
export function checkRedirectUrisAfter(current: AppRecord, body: AppChangesBody): void {
  const deviceGrant = body.device_grant ?? current.deviceGrant === true;
  const clientCredentials = body.client_credentials ?? current.clientCredentials === true;
  const casServices = body.cas_services ?? current.casServices ?? [];
  checkedRedirectUris(
    body.redirect_uris ?? current.redirectUris,
    deviceGrant || clientCredentials || casServices.length > 0,
  );
}

import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { createdAtIso } from '../../../domain/user-views.js';
import { requireActiveAccessToken } from '../../../oauth/bearer.js';
import { InsufficientScope } from '../../../oauth/errors.js';
import { profileClaims, releasesProfileClaims } from '../../../oauth/profile-claims.js';
import { hasScope } from '../../../oauth/scopes.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { optional } from '../../schemas.js';
import { BEARER } from '../../openapi/security.js';

const UserInfoResponse = Type.Object(
  {
    sub: Type.String(),
    uin: Type.Integer(),
    user_group: Type.String(),
    created_at: Type.String(),
    ...optional(Type.String(), 'name', 'preferred_username', 'email'),
    email_verified: Type.Optional(Type.Boolean()),
    groups: Type.Optional(Type.Array(Type.String())),
  },
  { description: 'The claims about the user (OIDC Core §5.3.2)' },
);

/** RFC 6750 §2.2: a form body may carry the token as `access_token`; other fields are ignored. */
const UserInfoForm = Type.Object(
  { access_token: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/** RFC 6750 §2.2: the body parameter counts only in a form-encoded POST. */
function formAccessToken(request: FastifyRequest): string | undefined {
  if (request.method !== 'POST' || !FORM.test(request.headers['content-type'] ?? '')) return undefined;
  return (request.body as { access_token?: string } | undefined)?.access_token;
}

/**
 * OIDC Core §5.3 (docs/interface.md#openid-connect): the standard UserInfo endpoint, GET or POST, Bearer
 * token in the header (RFC 6750 §2.1) or a POST's form body (§2.2), plain JSON. Errors are RFC 6750 §3
 * (WWW-Authenticate + `{error, error_description}`). The profile claims its scope releases follow
 * (docs/interface.md#people-groups-and-audit).
 */
export const userInfoRoutes: RoutePlugin = async (app, { ctx }) => {
  const handler = async (request: FastifyRequest) => {
    // RFC 6750 §2.1, §2.2 and §3.1: the token in the header or a form body, or invalid_token.
    const { user, token } = await requireActiveAccessToken(
      ctx,
      request.headers.authorization,
      formAccessToken(request),
    );
    // OIDC Core §5.3: the access token was "obtained through an OpenID Connect Authentication Request";
    // RFC 6750 §3.1 insufficient_scope otherwise (the legacy get-user-info answers any valid token).
    if (!hasScope(token.scope, 'openid')) {
      throw new InsufficientScope('the access token was not issued for scope openid');
    }
    const answer = {
      sub: String(user.uin),
      uin: user.uin,
      user_group: user.userGroup,
      created_at: createdAtIso(user.createdAt),
    };
    // The token look-up reads no profile, so a token without profile scopes costs nothing more; one with
    // them reads the user by primary key.
    if (!releasesProfileClaims(token.scope)) return answer;
    const profile = await ctx.users.find(user.uin);
    return profile ? { ...answer, ...profileClaims(profile, token.scope) } : answer;
  };
  const options = {
    schema: { response: { 200: UserInfoResponse }, security: BEARER },
    config: { errorStyle: 'oauth' as const, serializeWithSchema: true },
  };
  app.get('/v1/oauth2/userinfo', options, handler);
  app.post(
    '/v1/oauth2/userinfo',
    {
      ...options,
      schema: {
        ...options.schema,
        body: { content: { 'application/x-www-form-urlencoded': { schema: UserInfoForm } } },
      },
    },
    handler,
  );
};

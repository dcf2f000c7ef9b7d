import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { requireActiveAccessToken } from '../../../oauth/bearer.js';
import { profileClaims, releasesProfileClaims } from '../../../oauth/profile-claims.js';
import type { RoutePlugin } from '../../route-plugin.js';

const UserInfoResponse = Type.Object({
  sub: Type.String(),
  uin: Type.Integer(),
  user_group: Type.String(),
  created_at: Type.String(),
  name: Type.Optional(Type.String()),
  preferred_username: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  email_verified: Type.Optional(Type.Boolean()),
  groups: Type.Optional(Type.Array(Type.String())),
});

/**
 * OIDC Core §5.3 (docs/interface.md#openid-connect): the standard UserInfo endpoint, GET or POST, Bearer
 * token in the header (RFC 6750 §2.1), plain JSON. Errors are RFC 6750 §3 (WWW-Authenticate +
 * `{error, error_description}`). The profile claims its scope releases follow
 * (docs/interface.md#people-groups-and-audit).
 */
export const userInfoRoutes: RoutePlugin = async (app, { ctx }) => {
  const handler = async (request: FastifyRequest) => {
    // RFC 6750 §2.1 and §3.1: the Bearer token in the header, or invalid_token.
    const { user, token } = await requireActiveAccessToken(ctx, request.headers.authorization);
    const answer = {
      sub: String(user.uin),
      uin: user.uin,
      user_group: user.userGroup,
      created_at: new Date(user.createdAt).toISOString(),
    };
    // The token look-up reads no profile, so a token without profile scopes costs nothing more; one with
    // them reads the user by primary key.
    if (!releasesProfileClaims(token.scope)) return answer;
    const profile = await ctx.store.users.find(user.uin);
    return profile ? { ...answer, ...profileClaims(profile, token.scope) } : answer;
  };
  const options = {
    schema: { response: { 200: UserInfoResponse } },
    config: { errorStyle: 'oauth' as const },
  };
  app.get('/v1/oauth2/userinfo', options, handler);
  app.post('/v1/oauth2/userinfo', options, handler);
};

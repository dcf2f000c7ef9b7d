import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { requireActiveAccessToken } from '../../../oauth/bearer.js';
import type { RoutePlugin } from '../../route-plugin.js';

const UserInfoResponse = Type.Object({
  sub: Type.String(),
  uin: Type.Integer(),
  user_group: Type.String(),
  created_at: Type.String(),
});

/**
 * OIDC Core §5.3 (docs/interface.md#openid-connect): the standard UserInfo endpoint, GET or POST, Bearer
 * token in the header (RFC 6750 §2.1), plain JSON. Errors are RFC 6750 §3 (WWW-Authenticate +
 * `{error, error_description}`).
 */
export const userInfoRoutes: RoutePlugin = async (app, { ctx }) => {
  const handler = async (request: FastifyRequest) => {
    // RFC 6750 §2.1 and §3.1: the Bearer token in the header, or invalid_token.
    const { user } = await requireActiveAccessToken(ctx, request.headers.authorization);
    return {
      sub: String(user.uin),
      uin: user.uin,
      user_group: user.userGroup,
      created_at: new Date(user.createdAt).toISOString(),
    };
  };
  const options = {
    schema: { response: { 200: UserInfoResponse } },
    config: { errorStyle: 'oauth' as const },
  };
  app.get('/v1/oauth2/userinfo', options, handler);
  app.post('/v1/oauth2/userinfo', options, handler);
};

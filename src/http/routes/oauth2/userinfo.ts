import { Type } from '@sinclair/typebox';
import { credentialKey } from '../../../oauth/credentials.js';
import { INVALID_ACCESS_TOKEN, bearerToken } from '../../../oauth/bearer.js';
import { InvalidToken } from '../../../oauth/errors.js';
import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../../route-plugin.js';

const UserInfoResponse = Type.Object({
  sub: Type.String(),
  uin: Type.Integer(),
  user_group: Type.String(),
  created_at: Type.String(),
});

/**
 * SPEC §6 / OIDC Core §5.3: the standard UserInfo endpoint, GET or POST, Bearer token in the header
 * (RFC 6750 §2.1), plain JSON. Errors are RFC 6750 §3 (WWW-Authenticate + `{error, error_description}`).
 */
export const userInfoRoutes: RoutePlugin = async (app, { ctx }) => {
  const handler = async (request: FastifyRequest) => {
    const token = bearerToken(request.headers.authorization);
    const owner = await ctx.store.tokens.findActiveOwner(credentialKey(token), ctx.clock.now());
    // RFC 6750 §3.1 invalid_token.
    if (!owner) throw new InvalidToken(INVALID_ACCESS_TOKEN);
    const { user } = owner;
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

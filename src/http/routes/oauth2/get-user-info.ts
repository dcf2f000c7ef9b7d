import { Type } from '@sinclair/typebox';
import { credentialKey } from '../../../oauth/credentials.js';
import { INVALID_ACCESS_TOKEN, bearerToken } from '../../../oauth/bearer.js';
import { InvalidToken } from '../../../oauth/errors.js';
import { userView } from '../../../domain/users.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';

/**
 * The 200 answer, in SPEC §5's key order. Declaring it also lets Fastify serialize it with a compiled
 * serializer: this is the hot path.
 */
const LegacyUserInfoResponse = Type.Object({
  code: Type.Integer(),
  msg: Type.String(),
  data: Type.Object({
    created_at: Type.String(),
    uin: Type.Integer(),
    user_group: Type.String(),
  }),
});

/**
 * SPEC §5: the legacy user-information call. The hot path (benchmarked against bare Fastify): one storage
 * call answers whether the token is unrevoked and unexpired and its user and app enabled.
 */
export const legacyGetUserInfoRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get(
    '/v1/oauth2/get-user-info',
    { schema: { response: { 200: LegacyUserInfoResponse } }, config: { errorStyle: 'legacy' } },
    async (request) => {
      // RFC 6750 §2.1: Authorization: Bearer <token>.
      const token = bearerToken(request.headers.authorization);
      const owner = await ctx.store.tokens.findActiveOwner(credentialKey(token), ctx.clock.now());
      // RFC 6750 §3.1 invalid_token: "expired, revoked, malformed, or invalid".
      if (!owner) throw new InvalidToken(INVALID_ACCESS_TOKEN);
      // The response schema puts the keys in SPEC §5's order (created_at, uin, user_group).
      return ok(userView(owner.user));
    },
  );
};

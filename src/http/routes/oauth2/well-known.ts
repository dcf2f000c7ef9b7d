import { authorizationServerMetadata } from '../../../oauth/metadata.js';
import { publicJwks } from '../../../oauth/signing-keys.js';
import type { RoutePlugin } from '../../route-plugin.js';

/**
 * docs/interface.md#discovery: RFC 8414 metadata, its OpenID Connect Discovery twin, and the id_token keys
 * (RFC 7517).
 */
export const wellKnownRoutes: RoutePlugin = async (app, { ctx }) => {
  const metadata = authorizationServerMetadata(ctx.config);
  app.get(
    '/.well-known/oauth-authorization-server',
    { config: { errorStyle: 'oauth' } },
    async () => metadata,
  );
  app.get('/.well-known/openid-configuration', { config: { errorStyle: 'oauth' } }, async () => metadata);
  app.get('/.well-known/jwks.json', { config: { errorStyle: 'oauth' } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return publicJwks(ctx);
  });
};

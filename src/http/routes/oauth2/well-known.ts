import { Type } from '@sinclair/typebox';
import { authorizationServerMetadata } from '../../../oauth/metadata.js';
import { publicJwks } from '../../../oauth/signing-keys.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { PUBLIC } from '../../openapi/security.js';
import type { JWK } from 'jose';

/** RFC 8414 §2 (OpenID Connect Discovery 1.0 §3): the members every client needs; more may follow. */
const MetadataAnswer = Type.Unsafe<Record<string, unknown>>(
  Type.Object(
    {
      issuer: Type.String(),
      authorization_endpoint: Type.String(),
      token_endpoint: Type.String(),
      jwks_uri: Type.String(),
      response_types_supported: Type.Array(Type.String()),
      grant_types_supported: Type.Array(Type.String()),
    },
    { additionalProperties: true, description: 'The server metadata (RFC 8414 §2)' },
  ),
);

/** RFC 7517 §5: the public keys that sign id_tokens. */
const JwksAnswer = Type.Unsafe<{ keys: JWK[] }>(
  Type.Object(
    {
      keys: Type.Array(
        Type.Object({ kty: Type.String(), kid: Type.String() }, { additionalProperties: true }),
      ),
    },
    { additionalProperties: false, description: 'The JWK Set (RFC 7517 §5)' },
  ),
);

/**
 * docs/interface.md#discovery: RFC 8414 metadata, its OpenID Connect Discovery twin, and the id_token keys
 * (RFC 7517).
 */
export const wellKnownRoutes: RoutePlugin = async (app, { ctx }) => {
  const metadata = authorizationServerMetadata(ctx.config);
  const metadataRoute = {
    schema: { response: { 200: MetadataAnswer }, security: PUBLIC },
    config: { errorStyle: 'oauth' as const },
  };
  app.get('/.well-known/oauth-authorization-server', metadataRoute, async () => metadata);
  app.get('/.well-known/openid-configuration', metadataRoute, async () => metadata);
  const jwksRoute = {
    schema: { response: { 200: JwksAnswer }, security: PUBLIC },
    config: { errorStyle: 'oauth' as const },
  };
  app.get('/.well-known/jwks.json', jwksRoute, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return publicJwks(ctx);
  });
};

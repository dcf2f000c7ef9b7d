/**
 * How answers are serialized, now that every route declares its response schemas (docs/interface.md#openapi).
 * Fastify serializes with a route's response schema (fast-json-stringify), which drops undeclared members and
 * orders them as the schema does. The answers predate their schemas and must stay byte for byte, so a route's
 * response schemas document and test its answers but do not shape them: the route answers with
 * `JSON.stringify`, as before it declared them. A route that asks for `serializeWithSchema` keeps Fastify's
 * compiled serializer (the legacy user information, whose schema fixes its documented key order and which
 * is the hot path).
 */
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Serialize with this route's response schemas (fast-json-stringify) instead of `JSON.stringify`. */
    serializeWithSchema?: boolean;
  }
}

const stringify = (payload: unknown): string => JSON.stringify(payload);

/** Registered before the routes: it applies to every route added after it. */
export function registerResponseSerialization(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.serializeWithSchema === true || route.serializerCompiler) return;
    route.serializerCompiler = () => stringify;
  });
}

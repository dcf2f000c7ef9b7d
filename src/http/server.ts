import Fastify, { type FastifyInstance, LogController, type RouteOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.js';
import type { TrustProxy } from '../config/config.js';
import { notFound } from './api-error.js';
import { registerDatabaseOutage } from './database-outage.js';
import { registerDirectoryOutage } from './directory-outage.js';
import { lazyChildLogger } from './lazy-child-logger.js';
import { registerMetrics } from './metrics.js';
import { registerResponseObservers } from './route-hooks.js';
import { registerAccessLog } from './plugins/access-log.js';
import { registerBodyParsers } from './plugins/body-parsers.js';
import { registerConnectionDraining } from './plugins/connection-draining.js';
import { registerCsrfCheck } from './plugins/csrf.js';
import { registerNulCheck } from './plugins/nul-check.js';
import { registerResponseSerialization } from './plugins/response-serialization.js';
import { registerOpenApi } from './openapi/document.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { type StartupGate, registerStartupGate } from './startup-gate.js';
import { recordRoutes } from './plugins/method-not-allowed.js';
import { errorHandler, render } from './responses.js';
import { registerAll } from './route-plugin.js';
import { accountRoutes } from './routes/account/index.js';
import { adminRoutes } from './routes/admin/index.js';
import { brandingRoutes } from './routes/branding.js';
import { casRoutes } from './routes/cas/index.js';
import { healthRoutes } from './routes/health.js';
import { oauth2Routes } from './routes/oauth2/index.js';
import { webPages } from './routes/web-pages.js';

/**
 * How long a client may take at each stage of a request. Fastify's defaults wait forever for a request's
 * body (`requestTimeout` 0), so a client sending one byte a second held a connection, and a stopping server,
 * indefinitely. Bodies are at most 64 KiB: 30 s is generous even for a phone on a poor network.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** A socket with no traffic while a request is open (a client that stops reading the answer) is closed. */
const CONNECTION_TIMEOUT_MS = 60_000;
/**
 * Idle keep-alive connections stay open longer than the idle timeout of the usual reverse proxies (nginx and
 * cloud load balancers: 60 s), so the proxy, never this server, closes them and a request is never sent on
 * a connection being closed. It no longer delays a stop: draining closes idle connections at once.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export interface ServerOptions {
  /** Log requests (off in tests unless asked). */
  readonly logger?: boolean;
  /** Shut until the database has answered at start-up (./startup-gate.ts); always open when absent. */
  readonly startupGate?: StartupGate;
  /** Told of every route as it is added (a test compares them with the OpenAPI document). */
  readonly onRoute?: (route: RouteOptions) => void;
}

/**
 * Which `X-Forwarded-For` entries to believe (docs/operations.md): the proxies' addresses, or a number of hops
 * counted from the socket (Fastify ignores a bare number, so it becomes a function here, as Express does).
 * Never `true`, which would take the client's own leftmost entry as its address.
 */
function trustedProxies(trust: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** Assembles the HTTP server: cross-cutting plugins first, then one plugin per feature. */
export async function buildServer(ctx: AppContext, options: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: ctx.config.logLevel,
            // No secrets, codes or tokens in logs (docs/security.md).
            redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
          },
    // Fastify's own two lines per request would log the query string; access-log.ts logs one, without it.
    logController: new LogController({ disableRequestLogging: true }),
    // A request's own logger is made when something logs through it (./lazy-child-logger.ts).
    ...(options.logger === false ? {} : { childLoggerFactory: lazyChildLogger }),
    bodyLimit: 64 * 1024,
    requestTimeout: REQUEST_TIMEOUT_MS,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // Node checks the two timeouts above on this interval (30 s by default, which would stretch them).
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
    },
    trustProxy: trustedProxies(ctx.config.trustProxy),
    return503OnClosing: true,
    // Errors Fastify meets before routing (a malformed URL) are answered in the envelope too.
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
    ajv: {
      customOptions: {
        // Unknown fields and wrong types are rejected, never silently dropped or coerced.
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: true,
        allErrors: false,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  registerDatabaseOutage(app);
  registerDirectoryOutage(app, ctx.passwords.directory);
  if (options.startupGate) registerStartupGate(app, options.startupGate, ctx.database.kind);
  registerBodyParsers(app);
  registerConnectionDraining(app);
  registerSecurityHeaders(app, ctx.config);
  registerCsrfCheck(app, ctx.config);
  registerNulCheck(app);
  const responses = registerResponseObservers(app);
  registerAccessLog(app, responses);
  const registry = registerMetrics(responses);
  app.setErrorHandler(errorHandler);
  registerNotFound(app);

  // Before the routes: both see each route as it is added (docs/interface.md#openapi).
  registerResponseSerialization(app);
  await registerOpenApi(app, ctx.config);
  await app.register(healthRoutes, { ctx, registry });
  await registerAll(app, ctx, [
    accountRoutes,
    adminRoutes,
    oauth2Routes,
    casRoutes,
    brandingRoutes,
    webPages,
  ]);
  return app;
}

/**
 * Answers a path no route has with 404, and a known path asked with a method it lacks with 405 and `Allow`,
 * in the convention of the path's own routes.
 */
function registerNotFound(app: Parameters<typeof recordRoutes>[0]): void {
  const methodNotAllowed = recordRoutes(app);
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const wrongMethod = methodNotAllowed(request);
    if (wrongMethod) {
      // Rendered in the convention of the path's own routes (RFC 6749 JSON, legacy or envelope).
      const error = Object.assign(
        new Error(`method ${request.method} is not allowed on ${path}; use ${wrongMethod.allow}`),
        { statusCode: 405 },
      );
      const rendered = render(error, wrongMethod.errorStyle);
      return reply
        .code(405)
        .headers({ ...rendered.headers, allow: wrongMethod.allow })
        .send(rendered.body);
    }
    throw notFound(`no such endpoint: ${request.method} ${path}`);
  });
}

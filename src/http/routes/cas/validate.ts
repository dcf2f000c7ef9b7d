import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type CasAnswer,
  type CasFormat,
  authenticationFailure,
  authenticationSuccess,
  proxyFailure,
  validateAnswer,
} from '../../../cas/responses.js';
import { flag } from '../../../cas/login.js';
import { casAttributes, validateServiceTicket } from '../../../cas/tickets.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { casQuery, single } from './query.js';
import { Cas1Answers, ProxyAnswers, ValidationAnswers } from './answers.js';
import { PUBLIC } from '../../openapi/security.js';

/** CAS 3.0 §2.4–§2.6: the validation parameters (`pgtUrl` accepted and ignored). */
const ValidateQuery = casQuery('service', 'ticket', 'renew', 'pgtUrl', 'format');
/** CAS 3.0 §2.7. */
const ProxyQuery = casQuery('pgt', 'targetService', 'format');

type Query = Readonly<Record<string, string | readonly string[]>>;

/**
 * CAS 3.0 §2.5.1 `format`: XML by default, or XML or JSON when asked (case-insensitive); undefined for any
 * other value, which "MUST" get an error code (answered in XML).
 */
function formatOf(query: Query): CasFormat | undefined {
  const asked = single(query, 'format')?.toUpperCase() ?? 'XML';
  return asked === 'XML' || asked === 'JSON' ? asked : undefined;
}

const unsupportedFormat = (query: Query): string =>
  `The format ${single(query, 'format') ?? ''} is not supported: XML or JSON`;

function send(reply: FastifyReply, answer: CasAnswer, status = 200): FastifyReply {
  // A validation answer names a user: never cached.
  return reply.code(status).header('cache-control', 'no-store').type(answer.contentType).send(answer.body);
}

/**
 * docs/interface.md#cas-protocol: ticket validation. `/cas/validate` (CAS 1.0), `/cas/serviceValidate` and
 * `/cas/proxyValidate` (CAS 2.0: the user), `/cas/p3/serviceValidate` and `/cas/p3/proxyValidate` (CAS 3.0:
 * the user and attributes). `pgtUrl` is accepted and ignored: campus-sso issues no proxy-granting tickets, so
 * `/cas/proxy` always answers `proxyFailure`. Failures are answered 200 in the protocol's own form, with its
 * codes (§2.5.3); a fault of the server is INTERNAL_ERROR.
 */
export const casValidateRoutes: RoutePlugin = async (app, { ctx }) => {
  async function validate(request: FastifyRequest<{ Querystring: Query }>) {
    const ticket = single(request.query, 'ticket');
    const service = single(request.query, 'service');
    return validateServiceTicket(ctx, request, {
      ticket: ticket ?? undefined,
      service: service ?? undefined,
      renew: flag(single(request.query, 'renew') ?? undefined),
    });
  }

  app.get(
    '/cas/validate',
    {
      schema: {
        querystring: casQuery('service', 'ticket', 'renew'),
        response: Cas1Answers,
        security: PUBLIC,
      },
    },
    async (request, reply) => {
      try {
        const outcome = await validate(request);
        return send(reply, validateAnswer(outcome.ok ? String(outcome.user.uin) : undefined));
      } catch (error) {
        request.log.error({ err: error }, 'CAS validation failed');
        return send(reply, validateAnswer(undefined), 500);
      }
    },
  );

  for (const [path, attributes] of [
    ['/cas/serviceValidate', false],
    ['/cas/proxyValidate', false],
    ['/cas/p3/serviceValidate', true],
    ['/cas/p3/proxyValidate', true],
  ] as const) {
    app.get(
      path,
      { schema: { querystring: ValidateQuery, response: ValidationAnswers, security: PUBLIC } },
      async (request, reply) => {
        const format = formatOf(request.query);
        // Refused before the ticket is looked at, so it stays good for a request the service can read.
        if (format === undefined) {
          return send(
            reply,
            authenticationFailure('XML', 'INVALID_REQUEST', unsupportedFormat(request.query)),
          );
        }
        try {
          const outcome = await validate(request);
          if (!outcome.ok)
            return send(reply, authenticationFailure(format, outcome.code, outcome.description));
          const user = String(outcome.user.uin);
          return send(
            reply,
            authenticationSuccess(format, {
              user,
              ...(attributes && { attributes: casAttributes(outcome.ticket, outcome.user) }),
            }),
          );
        } catch (error) {
          request.log.error({ err: error }, 'CAS validation failed');
          return send(
            reply,
            authenticationFailure(format, 'INTERNAL_ERROR', 'The server could not validate the ticket'),
            500,
          );
        }
      },
    );
  }

  addProxyRoute(app);
};

/** §2.7: proxy tickets need a proxy-granting ticket, and campus-sso issues none. */
function addProxyRoute(app: Parameters<RoutePlugin>[0]): void {
  app.get(
    '/cas/proxy',
    { schema: { querystring: ProxyQuery, response: ProxyAnswers, security: PUBLIC } },
    async (request, reply) => {
      const format = formatOf(request.query);
      return send(
        reply,
        format === undefined
          ? proxyFailure('XML', 'INVALID_REQUEST', unsupportedFormat(request.query))
          : proxyFailure(format, 'INVALID_REQUEST', 'campus-sso issues no proxy-granting tickets'),
      );
    },
  );
}

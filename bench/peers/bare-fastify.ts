/**
 * The ceiling: a bare Fastify route answering exactly what campus-sso's get-user-info answers, with no
 * token lookup at all. Whatever campus-sso loses against this row is the cost of its own work.
 *
 *   PORT=8081 node --import tsx bench/peers/bare-fastify.ts
 */
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 8081);
const USER_INFO = {
  code: 0,
  msg: 'ok',
  data: { created_at: '2024-04-18T00:49:37.275Z', uin: 1010553892, user_group: 'admin' },
} as const;

const app = Fastify({ logger: false });
app.get('/v1/oauth2/get-user-info', async () => USER_INFO);
app.get('/healthz', async () => ({ ok: true }));

await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

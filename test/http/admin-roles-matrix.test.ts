/**
 * docs/interface.md#roles: every admin route, as the admin plugin registers it, against every kind of caller:
 * the status each gets, and nothing changed after a refusal. Both databases.
 */
import { beforeAll, expect, it } from 'vitest';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { REDIRECT_URI, describeOnDatabases, freshUin, registerClient } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import {
  NEW_PASSWORD,
  TAG_A,
  TAG_B,
  pendingSecondFactor,
  registeredAdminRoutes,
  roleHolder,
  serviceToken,
  snapshot,
  targetUser,
  withToken,
} from './admin-roles-support.js';

const ROUTES = await registeredAdminRoutes();

const CALLERS = [
  'admin',
  'helpdesk',
  'helpdesk elsewhere',
  'auditor',
  'plain user',
  'pending second factor',
  'token users:read',
  'token users:write',
  'token audit:read',
  'nobody',
] as const;
type Caller = (typeof CALLERS)[number];

interface Target {
  readonly uin: number;
  readonly clientId: string;
}

interface Call {
  readonly path: string;
  readonly body?: unknown;
}

/** A valid request of each route, on the target (a plain user carrying TAG_A, an app). */
const REQUESTS: Readonly<Record<string, (target: Target) => Call>> = {
  'GET /v1/admin/apps': () => ({ path: '/v1/admin/apps' }),
  'POST /v1/admin/apps': () => ({
    path: '/v1/admin/apps',
    body: { name: 'Matrix', emoji: '🧪', redirect_uris: [REDIRECT_URI] },
  }),
  'GET /v1/admin/apps/:client_id': (t) => ({ path: `/v1/admin/apps/${t.clientId}` }),
  'PATCH /v1/admin/apps/:client_id': (t) => ({
    path: `/v1/admin/apps/${t.clientId}`,
    body: { name: 'Renamed' },
  }),
  'POST /v1/admin/apps/:client_id/rotate-secret': (t) => ({
    path: `/v1/admin/apps/${t.clientId}/rotate-secret`,
  }),
  'DELETE /v1/admin/apps/:client_id': (t) => ({ path: `/v1/admin/apps/${t.clientId}` }),
  'GET /v1/admin/users': (t) => ({ path: `/v1/admin/users?tag=${TAG_A}&search=${t.uin}` }),
  'GET /v1/admin/users/:uin': (t) => ({ path: `/v1/admin/users/${t.uin}` }),
  'POST /v1/admin/users': () => ({
    path: '/v1/admin/users',
    body: { uin: freshUin(), password: NEW_PASSWORD, user_group: 'user', groups: [TAG_A] },
  }),
  'PATCH /v1/admin/users/:uin': (t) => ({
    path: `/v1/admin/users/${t.uin}`,
    body: { password: NEW_PASSWORD },
  }),
  'POST /v1/admin/users/import': () => ({
    path: '/v1/admin/users/import',
    body: { rows: [{ line: 2, uin: String(freshUin()), user_group: 'user', password: NEW_PASSWORD }] },
  }),
  'POST /v1/admin/users/bulk': (t) => ({
    path: '/v1/admin/users/bulk',
    body: { uins: [t.uin], action: 'disable' },
  }),
  'POST /v1/admin/users/:uin/unlock': (t) => ({ path: `/v1/admin/users/${t.uin}/unlock` }),
  'POST /v1/admin/users/:uin/reset-code': (t) => ({ path: `/v1/admin/users/${t.uin}/reset-code` }),
  'POST /v1/admin/users/:uin/sign-out': (t) => ({ path: `/v1/admin/users/${t.uin}/sign-out` }),
  'DELETE /v1/admin/users/:uin/second-factors': (t) => ({ path: `/v1/admin/users/${t.uin}/second-factors` }),
  'GET /v1/admin/audit': (t) => ({ path: `/v1/admin/audit?uin=${t.uin}` }),
  'GET /v1/admin/audit.csv': (t) => ({ path: `/v1/admin/audit.csv?uin=${t.uin}` }),
};

const HELPS = ['admin', 'helpdesk', 'token users:write'] as const;
const READS_USERS = ['admin', 'helpdesk', 'auditor', 'token users:read'] as const;
const READS_AUDIT = ['admin', 'helpdesk', 'auditor', 'token audit:read'] as const;

/** Who is answered 200 (everyone else: 401 without a session, 403 code 4 otherwise). SPEC'd in docs/interface.md#roles. */
const ALLOWED: Readonly<Record<string, readonly Caller[]>> = {
  'GET /v1/admin/apps': ['admin'],
  'POST /v1/admin/apps': ['admin'],
  'GET /v1/admin/apps/:client_id': ['admin'],
  'PATCH /v1/admin/apps/:client_id': ['admin'],
  'POST /v1/admin/apps/:client_id/rotate-secret': ['admin'],
  'DELETE /v1/admin/apps/:client_id': ['admin'],
  // The list answers a helpdesk member of other groups too, without the target (checked below).
  'GET /v1/admin/users': [...READS_USERS, 'helpdesk elsewhere'],
  'GET /v1/admin/users/:uin': READS_USERS,
  'POST /v1/admin/users': ['admin', 'token users:write'],
  'PATCH /v1/admin/users/:uin': HELPS,
  'POST /v1/admin/users/import': ['admin', 'token users:write'],
  'POST /v1/admin/users/bulk': ['admin', 'token users:write'],
  'POST /v1/admin/users/:uin/unlock': HELPS,
  'POST /v1/admin/users/:uin/reset-code': HELPS,
  'POST /v1/admin/users/:uin/sign-out': HELPS,
  'DELETE /v1/admin/users/:uin/second-factors': HELPS,
  'GET /v1/admin/audit': READS_AUDIT,
  'GET /v1/admin/audit.csv': READS_AUDIT,
};

function expectedStatus(route: string, caller: Caller): number {
  if ((ALLOWED[route] ?? []).includes(caller)) return 200;
  return caller === 'nobody' || caller === 'pending second factor' ? 401 : 403;
}

it('the matrix names every route the admin plugin registers, and no other', () => {
  expect(ROUTES).toEqual(Object.keys(REQUESTS).sort());
  expect(Object.keys(ALLOWED).sort()).toEqual(ROUTES);
});

describeOnDatabases(
  'the admin API, route by route and caller by caller',
  { user: 'admin' },
  ({ server, user }) => {
    const browsers = new Map<Caller, Browser>();
    const tokens = new Map<Caller, string>();

    beforeAll(async () => {
      browsers.set('admin', user.browser);
      browsers.set('helpdesk', (await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_A] }])).browser);
      browsers.set(
        'helpdesk elsewhere',
        (await roleHolder(server, [{ role: 'helpdesk', groups: [TAG_B] }])).browser,
      );
      browsers.set('auditor', (await roleHolder(server, [{ role: 'auditor', groups: [TAG_A] }])).browser);
      browsers.set('plain user', (await roleHolder(server, [], 'member')).browser);
      browsers.set('pending second factor', await pendingSecondFactor(server));
      browsers.set('nobody', new Browser(server.baseUrl));
      tokens.set('token users:read', await serviceToken(server, user.browser, 'admin:users:read'));
      tokens.set('token users:write', await serviceToken(server, user.browser, 'admin:users:write'));
      tokens.set('token audit:read', await serviceToken(server, user.browser, 'admin:audit:read'));
    });

    async function call(caller: Caller, method: string, request: Call): Promise<Response> {
      const token = tokens.get(caller);
      if (token !== undefined) return withToken(server, token, method, request.path, request.body);
      const browser = browsers.get(caller);
      if (!browser) throw new Error(`no caller ${caller}`);
      return browser.call(method, request.path, request.body);
    }

    it('covers every /v1/admin operation of the OpenAPI document, so a new route cannot be missed', async () => {
      const response = await server.fetch('/v1/openapi.json');
      expect(response.status).toBe(200);
      const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
      const documented = Object.entries(document.paths)
        .filter(([path]) => path.startsWith('/v1/admin/'))
        .flatMap(([path, operations]) =>
          Object.keys(operations)
            .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
            .map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
        )
        .sort();
      expect(documented).toEqual(ROUTES);
    });

    it.each(ROUTES)('%s', async (route) => {
      const [method = '', pattern = ''] = route.split(' ');
      for (const caller of CALLERS) {
        const target = {
          uin: await targetUser(server),
          clientId: pattern.includes(':client_id') ? (await registerClient(server)).clientId : 'none',
        };
        const request = (REQUESTS[route] ?? (() => ({ path: pattern })))(target);
        const before = await snapshot(server, target.uin, target.clientId);
        const answer = await call(caller, method, request);
        const expected = expectedStatus(route, caller);
        const text = await answer.text();
        expect(answer.status, `${caller}: ${text}`).toBe(expected);
        if (expected !== 200) {
          expect(JSON.parse(text), caller).toMatchObject({
            code: expected === 401 ? EnvelopeCode.NotSignedIn : EnvelopeCode.Forbidden,
          });
          expect(await snapshot(server, target.uin, target.clientId), `${caller} changed something`).toBe(
            before,
          );
        }
        if (route === 'GET /v1/admin/users' && expected === 200) {
          const listed = (JSON.parse(text) as { data: { users: { uin: number }[] } }).data.users.map(
            (u) => u.uin,
          );
          expect(listed.includes(target.uin), caller).toBe(caller !== 'helpdesk elsewhere');
        }
      }
    });
  },
);

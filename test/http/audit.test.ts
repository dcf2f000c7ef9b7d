/**
 * The audit trail (docs/interface.md#people-groups-and-audit): what is recorded, the admin's list and CSV
 * export, the user's own recent sign-ins, and the retention.
 */
import { describe, expect, it } from 'vitest';
import { AuditLog, csvCell } from '../../src/domain/audit.js';
import type { AuditEventView } from '../../src/shared/views.js';
import type { Store } from '../../src/storage/store.js';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import {
  PASSWORD,
  REDIRECT_URI,
  freshUin,
  obtainCode,
  registerClient,
  signedInUser,
} from '../oauth/support.js';

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}
interface AuditPage {
  events: AuditEventView[];
  next_cursor: string | null;
}

describeOnDatabases('audit trail', { user: 'admin' }, ({ server, user }) => {
  const { uin: adminUin, browser: admin } = user;

  async function audit(query: string): Promise<AuditPage> {
    const response = await admin.call('GET', `/v1/admin/audit${query}`);
    expect(response.status).toBe(200);
    return (await json<Envelope<AuditPage>>(response)).data;
  }
  const actionsFor = async (uin: number): Promise<string[]> =>
    (await audit(`?uin=${uin}&limit=100`)).events.map((e) => `${e.action}:${e.outcome}`).reverse();

  describe('what is recorded', () => {
    it('sign-ins (success, failure, lock) and sign-out, with address and user agent, never the password', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const browser = new Browser(server.baseUrl);
      await browser.call(
        'POST',
        '/v1/account/login',
        { uin, password: 'wrong guess 1' },
        { 'user-agent': 'TestUA/1' },
      );
      await browser.login(uin, PASSWORD);
      await browser.call('POST', '/v1/account/logout', {});
      for (let i = 0; i < 5; i++) await browser.login(uin, 'wrong guess 2');
      await browser.login(uin, PASSWORD);
      expect(await actionsFor(uin)).toEqual([
        'sign_in:failure',
        'sign_in:success',
        'sign_out:success',
        ...Array<string>(5).fill('sign_in:failure'),
        'sign_in:locked',
      ]);
      const [first] = (await audit(`?uin=${uin}&limit=100`)).events.reverse();
      expect(first).toMatchObject({
        actor_uin: null,
        target: `user:${uin}`,
        ip: '127.0.0.1',
        user_agent: 'TestUA/1',
      });
      expect(first?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const all = JSON.stringify((await audit(`?uin=${uin}&limit=100`)).events);
      expect(all).not.toContain('wrong guess');
      expect(all).not.toContain(PASSWORD);
    });

    it('password changes, consents given and withdrawn', async () => {
      const client = await registerClient(server);
      const { uin, browser } = await signedInUser(server, 'user');
      await obtainCode(browser, client, { scope: 'openid' });
      // A remembered consent returning silently is not recorded again.
      await obtainCode(browser, client, { scope: 'openid' });
      await browser.call('DELETE', `/v1/account/consents/${client.clientId}`);
      await browser.call('POST', '/v1/account/password', {
        current_password: PASSWORD,
        new_password: 'another good password',
      });
      expect(await actionsFor(uin)).toEqual([
        'sign_in:success',
        'consent_given:success',
        'consent_withdrawn:success',
        'password_changed:success',
      ]);
      const events = (await audit(`?uin=${uin}&action=consent_given`)).events;
      expect(events[0]).toMatchObject({ actor_uin: uin, target: `app:${client.clientId}` });
    });

    it('admin actions on apps and users, with the admin as actor and no secrets', async () => {
      const created = await admin.call('POST', '/v1/admin/apps', {
        name: 'Gitea',
        emoji: '🐙',
        redirect_uris: [REDIRECT_URI],
      });
      const { app, client_secret } = (
        await json<Envelope<{ app: { client_id: string }; client_secret: string }>>(created)
      ).data;
      await admin.call('PATCH', `/v1/admin/apps/${app.client_id}`, { allowed_groups: ['teachers'] });
      await admin.call('POST', `/v1/admin/apps/${app.client_id}/rotate-secret`, {});
      await admin.call('DELETE', `/v1/admin/apps/${app.client_id}`);
      const uin = freshUin();
      await admin.call('POST', '/v1/admin/users', {
        uin,
        password: 'initial password 1',
        user_group: 'user',
      });
      await admin.call('PATCH', `/v1/admin/users/${uin}`, { groups: ['teachers'] });
      await admin.call('PATCH', `/v1/admin/users/${uin}`, { password: 'reset password 22' });
      await admin.call('POST', `/v1/admin/users/${uin}/reset-code`, {});
      await admin.call('POST', `/v1/admin/users/${uin}/unlock`, {});
      await admin.call('POST', '/v1/admin/users/bulk', { uins: [uin], action: 'add_tag', tag: 'staff' });
      await admin.call('POST', '/v1/admin/users/import', {
        rows: [{ line: 1, uin: String(freshUin()), user_group: 'user' }],
      });

      const page = await audit(`?uin=${adminUin}&limit=100`);
      const actions = page.events.map((e) => e.action);
      for (const action of [
        'app_created',
        'app_updated',
        'app_secret_rotated',
        'app_deleted',
        'user_created',
        'user_updated',
        'password_reset',
        'reset_code_issued',
        'user_unlocked',
        'users_bulk',
        'users_imported',
      ]) {
        expect(actions, action).toContain(action);
      }
      expect(page.events.every((e) => e.actor_uin === adminUin || e.action === 'sign_in')).toBe(true);
      const text = JSON.stringify(page.events);
      expect(text).not.toContain(client_secret);
      expect(text).not.toContain('reset password 22');
      expect(text).not.toContain('initial password 1');
    });

    it('a failing write is logged, never thrown into the request', async () => {
      const failing = { audit: { insert: () => Promise.reject(new Error('disk full')) } } as unknown as Store;
      const errors: unknown[] = [];
      const log = new AuditLog(failing, { now: () => 0 });
      await expect(
        log.record({
          action: 'sign_in',
          request: { ip: '::1', headers: {}, log: { error: (object) => errors.push(object) } },
        }),
      ).resolves.toBeUndefined();
      expect(errors).toHaveLength(1);
    });
  });

  describe('GET /v1/admin/audit', () => {
    it('pages newest first by (at, id) with next_cursor, without gaps or repeats', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      for (let i = 0; i < 7; i++) await new Browser(server.baseUrl).login(uin, PASSWORD);
      const seen: AuditEventView[] = [];
      let cursor = '';
      for (let pages = 0; pages < 10; pages++) {
        const page = await audit(`?uin=${uin}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.events);
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen.map((e) => e.id)).size).toBe(7);
      const times = seen.map((e) => Date.parse(e.at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('filters by action, since and until', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const start = new Date().toISOString();
      await new Browser(server.baseUrl).login(uin, 'wrong password x');
      await new Browser(server.baseUrl).login(uin, PASSWORD);
      const successes = await audit(`?uin=${uin}&action=sign_in&outcome=success`);
      expect(successes.events).toHaveLength(1);
      expect((await audit(`?uin=${uin}&since=${start}`)).events).toHaveLength(2);
      expect((await audit(`?uin=${uin}&until=${start}`)).events).toHaveLength(0);
      expect((await audit(`?uin=${uin}&action=sign_out`)).events).toHaveLength(0);
    });

    it('refuses a bad cursor, time, limit or uin with 400 code 1', async () => {
      for (const query of ['?cursor=nonsense', '?since=yesterday', '?limit=0', '?limit=501', '?uin=abc']) {
        const response = await admin.call('GET', `/v1/admin/audit${query}`);
        expect(response.status, query).toBe(400);
      }
    });

    it('is for admins only', async () => {
      const { browser } = await signedInUser(server, 'member');
      expect((await browser.call('GET', '/v1/admin/audit')).status).toBe(403);
      expect((await browser.call('GET', '/v1/admin/audit.csv')).status).toBe(403);
    });
  });

  describe('GET /v1/admin/audit.csv', () => {
    it('answers the same events as CSV, with formula-like cells neutralised', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      await new Browser(server.baseUrl).call(
        'POST',
        '/v1/account/login',
        { uin, password: PASSWORD },
        { 'user-agent': '=HYPERLINK("http://evil.example","x")' },
      );
      const response = await admin.call('GET', `/v1/admin/audit.csv?uin=${uin}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = (await response.text())
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      expect(lines[0]).toBe('at,actor_uin,action,target,outcome,ip,user_agent,detail,actor_client_id');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(
        `,${uin},sign_in,user:${uin},success,127.0.0.1,"'=HYPERLINK(""http://evil.example"",""x"")",`,
      );
    });

    it('prefixes cells starting with = + - @ with a quote', () => {
      expect(['=1+1', '+1', '-1', '@SUM(A1)', 'plain'].map(csvCell)).toEqual([
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        'plain',
      ]);
    });
  });

  describe('GET /v1/account/activity', () => {
    it("shows the user's own recent sign-ins, refused attempts included, and nobody else's", async () => {
      const { uin, browser } = await signedInUser(server, 'user');
      await new Browser(server.baseUrl).login(uin, 'someone guessing');
      await signedInUser(server, 'user');
      const response = await browser.call('GET', '/v1/account/activity');
      expect(response.status).toBe(200);
      const events = (await json<Envelope<{ events: AuditEventView[] }>>(response)).data.events;
      expect(events.map((e) => `${e.action}:${e.outcome}`)).toEqual(['sign_in:failure', 'sign_in:success']);
      expect(events.every((e) => e.target === `user:${uin}`)).toBe(true);
    });

    it('answers 401 code -1 when not signed in', async () => {
      expect((await new Browser(server.baseUrl).call('GET', '/v1/account/activity')).status).toBe(401);
    });
  });

  describe('retention (AUDIT_RETENTION_DAYS)', () => {
    it('the purge deletes events older than the retention and keeps the rest', async () => {
      const now = Date.now();
      const event = (id: string, at: number) => ({
        id,
        at,
        actorUin: null,
        action: 'sign_in',
        target: 'user:1',
        ip: null,
        userAgent: null,
        outcome: 'success',
        detail: null,
      });
      await server.ctx.store.audit.insert(event('00000000000000a1', now - 400 * 24 * 3600 * 1000));
      await server.ctx.store.audit.insert(event('00000000000000a2', now - 300 * 24 * 3600 * 1000));
      const report = await server.ctx.store.purgeExpired(now, 365);
      expect(report.auditEvents).toBe(1);
      const left = await server.ctx.store.audit.list({ uin: 1, limit: 10 });
      expect(left.map((e) => e.id)).toEqual(['00000000000000a2']);
      expect(server.config.auditRetentionDays).toBe(365);
    });
  });
});

/**
 * Recovery without email (docs/interface.md#people-groups-and-audit): an admin's one-time reset code, redeemed
 * at `POST /v1/account/password-reset`, and the CSV import's codes for rows without a password.
 */
import { describe, expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import {
  PASSWORD,
  freshUin,
  getUserInfo,
  registerClient,
  signedInUser,
  tokensFor,
} from '../oauth/support.js';

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

const NEW_PASSWORD = 'a fresh start 2026';
const CODE_FORMAT = /^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/;

describeOnDatabases('reset codes', { transport: 'inject', user: 'admin' }, ({ server, user }) => {
  const admin = user.browser;

  async function issue(uin: number): Promise<{ code: string; expires_at: string }> {
    const response = await admin.call('POST', `/v1/admin/users/${uin}/reset-code`, {});
    expect(response.status).toBe(200);
    return (await json<Envelope<{ code: string; expires_at: string }>>(response)).data;
  }
  function redeem(body: Record<string, unknown>, from = new Browser(server)): Promise<Response> {
    return from.call('POST', '/v1/account/password-reset', body);
  }

  describe('POST /v1/admin/users/:uin/reset-code', () => {
    it('answers a human-typable code valid 24 hours, stored only as a digest', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const before = Date.now();
      const { code, expires_at } = await issue(uin);
      expect(code).toMatch(CODE_FORMAT);
      const expiresAt = Date.parse(expires_at);
      expect(expiresAt - before).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
      expect(expiresAt - before).toBeLessThanOrEqual(24 * 3600 * 1000 + 5000);
      const events = await server.ctx.store.audit.list({ uin, limit: 10 });
      expect(JSON.stringify(events)).not.toContain(code);
    });

    it('lives the 1 to 14 days the admin chose, and says so in the audit trail', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const before = Date.now();
      const response = await admin.call('POST', `/v1/admin/users/${uin}/reset-code`, { days: 14 });
      expect(response.status).toBe(200);
      const { expires_at } = (await json<Envelope<{ expires_at: string }>>(response)).data;
      const days = (Date.parse(expires_at) - before) / (24 * 3600 * 1000);
      expect(days).toBeGreaterThan(13.99);
      expect(days).toBeLessThan(14.01);
      const events = await server.ctx.store.audit.list({ uin, limit: 10 });
      expect(events.find((e) => e.action === 'reset_code_issued')?.detail).toEqual({ days: 14 });
    });

    it('refuses a lifetime outside 1 to 14 whole days with 400, issuing nothing', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      for (const days of [0, 15, 2.5, '7']) {
        const response = await admin.call('POST', `/v1/admin/users/${uin}/reset-code`, { days });
        expect(response.status).toBe(400);
      }
      const events = await server.ctx.store.audit.list({ uin, limit: 10 });
      expect(events.filter((e) => e.action === 'reset_code_issued')).toEqual([]);
    });

    it('answers 404 code 5 for an unknown user', async () => {
      const response = await admin.call('POST', `/v1/admin/users/${freshUin()}/reset-code`, {});
      expect(response.status).toBe(404);
    });

    it('is for admins only', async () => {
      const { uin, browser } = await signedInUser(server, 'member');
      expect((await browser.call('POST', `/v1/admin/users/${uin}/reset-code`, {})).status).toBe(403);
    });
  });

  describe('POST /v1/account/password-reset', () => {
    it('sets the new password, typed in any case with or without dashes, and the old one stops working', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const { code } = await issue(uin);
      const typed = code.toLowerCase().replace(/-/g, ' ');
      const response = await redeem({ uin, code: typed, new_password: NEW_PASSWORD });
      expect(response.status).toBe(200);
      expect((await json<Envelope<object>>(response)).code).toBe(0);
      expect((await new Browser(server).login(uin, NEW_PASSWORD)).status).toBe(200);
      expect((await new Browser(server).login(uin, PASSWORD)).status).toBe(401);
    });

    it('is single use', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const { code } = await issue(uin);
      expect((await redeem({ uin, code, new_password: NEW_PASSWORD })).status).toBe(200);
      const again = await redeem({ uin, code, new_password: 'yet another password' });
      expect(again.status).toBe(401);
    });

    it('ends every session and revokes every token of the account', async () => {
      const client = await registerClient(server);
      const { uin, browser } = await signedInUser(server, 'user');
      const tokens = await tokensFor(server, browser, client);
      const { code } = await issue(uin);
      expect((await redeem({ uin, code, new_password: NEW_PASSWORD })).status).toBe(200);
      expect((await browser.call('GET', '/v1/account/me')).status).toBe(401);
      expect((await getUserInfo(server, tokens.access_token)).status).toBe(401);
    });

    it('answers a wrong code and an unknown uin the same: 401 code 1', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      await issue(uin);
      const wrong = await redeem({ uin, code: 'AAAA-BBBB-CCCC', new_password: NEW_PASSWORD });
      const unknown = await redeem({ uin: freshUin(), code: 'AAAA-BBBB-CCCC', new_password: NEW_PASSWORD });
      const bodies = [await wrong.text(), await unknown.text()];
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(bodies[0]).toBe(bodies[1]);
      expect(JSON.parse(bodies[0] ?? '{}')).toMatchObject({ code: 1 });
    });

    it('a replaced code no longer works; an expired one neither', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const first = await issue(uin);
      await issue(uin);
      expect((await redeem({ uin, code: first.code, new_password: NEW_PASSWORD })).status).toBe(401);
      const expiring = freshUin();
      await server.ctx.users.create(expiring, PASSWORD, 'user');
      const { code } = await issue(expiring);
      await server.ctx.store.resetCodes.put({
        uin: expiring,
        codeHash: (await import('../../src/domain/crypto.js')).sha256Hex(code.replace(/-/g, '')),
        createdAt: Date.now() - 2000,
        expiresAt: Date.now() - 1000,
      });
      expect((await redeem({ uin: expiring, code, new_password: NEW_PASSWORD })).status).toBe(401);
    });

    it('is throttled like a sign-in: 429 with Retry-After after five wrong codes', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const { code } = await issue(uin);
      for (let i = 0; i < 5; i++) await redeem({ uin, code: 'WRNG-WRNG-WRNG', new_password: NEW_PASSWORD });
      const locked = await redeem({ uin, code, new_password: NEW_PASSWORD });
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('refuses a short new password with 400 code 1, keeping the code', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'user');
      const { code } = await issue(uin);
      expect((await redeem({ uin, code, new_password: 'short' })).status).toBe(400);
      expect((await redeem({ uin, code, new_password: NEW_PASSWORD })).status).toBe(200);
    });

    it('refuses a malformed body with 400 code 1', async () => {
      for (const body of [{}, { uin: 'x', code: 'A', new_password: NEW_PASSWORD }, { uin: 1, code: 'A' }]) {
        expect((await redeem(body)).status).toBe(400);
      }
    });
  });

  describe('POST /v1/admin/users/import without passwords', () => {
    it('creates the user with the profile columns and answers a reset code the person can redeem', async () => {
      const uin = freshUin();
      const response = await admin.call('POST', '/v1/admin/users/import', {
        rows: [
          {
            line: 2,
            uin: String(uin),
            password: '',
            user_group: 'user',
            name: '张三',
            email: 'zhang@example.edu',
            groups: 'class-2026-3; choir',
            expires_at: '2030-07-01',
          },
          { line: 3, uin: String(freshUin()), user_group: 'user', groups: 'Bad Tag!' },
        ],
      });
      expect(response.status).toBe(200);
      const [created, bad] = (
        await json<Envelope<{ results: { status: string; reset_code?: string; error?: string }[] }>>(response)
      ).data.results;
      expect(created).toMatchObject({ status: 'created', reset_code: expect.stringMatching(CODE_FORMAT) });
      expect(bad).toMatchObject({ status: 'error', error: expect.stringMatching(/group/) });
      expect(bad).not.toHaveProperty('reset_code');
      expect(await server.ctx.store.users.find(uin)).toMatchObject({
        name: '张三',
        email: 'zhang@example.edu',
        groups: ['class-2026-3', 'choir'],
        expiresAt: Date.UTC(2030, 6, 1),
      });
      // Nobody can sign in before the code is redeemed.
      expect((await new Browser(server).login(uin, '!no password yet: redeem a reset code')).status).toBe(
        401,
      );
      const redeemed = await redeem({ uin, code: created?.reset_code, new_password: NEW_PASSWORD });
      expect(redeemed.status).toBe(200);
      expect((await new Browser(server).login(uin, NEW_PASSWORD)).status).toBe(200);
    });

    it('gives the codes the 1 to 14 days the chunk asks for (24 hours without), and says so in the audit trail', async () => {
      const importOne = async (extra: Record<string, unknown>) => {
        const uin = freshUin();
        const before = Date.now();
        const response = await admin.call('POST', '/v1/admin/users/import', {
          rows: [{ line: 2, uin, password: '', user_group: 'user' }],
          ...extra,
        });
        return { uin, before, response };
      };
      const daysOf = async ({ before, response }: { before: number; response: Response }) => {
        expect(response.status).toBe(200);
        const [row] = (await json<Envelope<{ results: { reset_code_expires_at: string }[] }>>(response)).data
          .results;
        return (Date.parse(row!.reset_code_expires_at) - before) / (24 * 3600 * 1000);
      };
      const week = await importOne({ reset_code_days: 7 });
      const weekDays = await daysOf(week);
      expect(weekDays).toBeGreaterThan(6.99);
      expect(weekDays).toBeLessThan(7.01);
      const events = await server.ctx.store.audit.list({ uin: week.uin, limit: 10 });
      expect(events.find((e) => e.action === 'reset_code_issued')?.detail).toEqual({
        via: 'import',
        days: 7,
      });
      const day = await daysOf(await importOne({}));
      expect(day).toBeGreaterThan(0.99);
      expect(day).toBeLessThan(1.01);
      for (const reset_code_days of [0, 15, 2.5, '7']) {
        const refused = await importOne({ reset_code_days });
        expect(refused.response.status).toBe(400);
        expect(await server.ctx.store.users.find(refused.uin)).toBeUndefined();
      }
    });
  });
});

/**
 * One rule in one place (docs/security.md#one-rule-one-place): the password policy, the app-name rule, the
 * user groups and the nonce and state limits are enforced inside the domain service or the authorization
 * pipeline that every path passes through, whatever a route's schema let through: reached here through the
 * services themselves, HTTP and the Campux import, on SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCampux } from '../../src/domain/campux-import.js';
import { RuleViolation } from '../../src/domain/rule-violation.js';
import { SqliteDatabase } from '../../src/storage/sqlite-driver.js';
import type { UserGroup } from '../../src/storage/store.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';
import {
  PASSWORD,
  REDIRECT_URI,
  describeEachDatabase,
  describeOnDatabases,
  freshUin,
} from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { obtainCode, signedInUser } from '../oauth/support.js';

const COMMON = 'password123';

describeOnDatabases(
  'one rule in one place',
  { transport: 'inject', user: 'admin', client: true },
  ({ server, user, client }) => {
    const admin = user.browser;

    describe('the password policy, inside UserService (every route, command and import calls it)', () => {
      it('refuses to create a user with a common, short or uin-containing password, and creates none', async () => {
        for (const password of [COMMON, 'short', 'my uin is UIN!']) {
          const uin = freshUin();
          const attempt = server.ctx.users.create(uin, password.replace('UIN', String(uin)), 'user');
          await expect(attempt).rejects.toBeInstanceOf(RuleViolation);
          expect(await server.ctx.store.users.find(uin)).toBeUndefined();
        }
      });

      it('refuses a self change, a reset and an admin set of a password breaking it, and changes nothing', async () => {
        const { uin } = await signedInUser(server);
        const before = (await server.ctx.store.users.find(uin))?.passwordHash;
        const withUin = `secret ${uin} phrase`;
        await expect(server.ctx.users.changeOwnPassword(uin, COMMON, 'session')).rejects.toBeInstanceOf(
          RuleViolation,
        );
        await expect(server.ctx.users.resetPassword(uin, withUin)).rejects.toBeInstanceOf(RuleViolation);
        await expect(
          server.ctx.users.changeAsAdmin(uin, { password: withUin }, { uin: 1, idHash: 'admin' }),
        ).rejects.toBeInstanceOf(RuleViolation);
        expect((await server.ctx.store.users.find(uin))?.passwordHash).toBe(before);
      });

      it('refuses a reset code redemption whose new password contains the uin, and keeps the code', async () => {
        const uin = freshUin();
        await server.ctx.users.create(uin, PASSWORD, 'user');
        const { code } = await server.ctx.resetCodes.issue(uin);
        const browser = new Browser(server);
        const refused = await browser.call('POST', '/v1/account/password-reset', {
          uin,
          code,
          new_password: `reset ${uin} phrase`,
        });
        expect(refused.status).toBe(400);
        expect((await json<{ msg: string }>(refused)).msg).toMatch(/uin/);
        const accepted = await browser.call('POST', '/v1/account/password-reset', {
          uin,
          code,
          new_password: 'a brand new passphrase',
        });
        expect(accepted.status).toBe(200);
      });
    });

    describe('the user groups, one list', () => {
      it('refuses a user_group outside the list in UserService, and creates no user', async () => {
        const uin = freshUin();
        await expect(server.ctx.users.create(uin, PASSWORD, 'root' as UserGroup)).rejects.toBeInstanceOf(
          RuleViolation,
        );
        await expect(server.ctx.users.createWithoutPassword(uin, 'root' as UserGroup)).rejects.toBeInstanceOf(
          RuleViolation,
        );
        expect(await server.ctx.store.users.find(uin)).toBeUndefined();
      });
    });

    describe('the app-name rule: 1 to 64 characters, counted in code points', () => {
      it('is enforced by AppService whatever the caller, on creation and on change', async () => {
        await expect(
          server.ctx.apps.create({ name: '   ', emoji: '📚', redirectUris: [REDIRECT_URI] }),
        ).rejects.toBeInstanceOf(RuleViolation);
        await expect(
          server.ctx.apps.create({ name: '🦊'.repeat(65), emoji: '📚', redirectUris: [REDIRECT_URI] }),
        ).rejects.toBeInstanceOf(RuleViolation);
        const { app } = await server.ctx.apps.create({
          name: ` ${'🦊'.repeat(64)} `,
          emoji: '📚',
          redirectUris: [REDIRECT_URI],
        });
        expect(app.name).toBe('🦊'.repeat(64));
        await expect(server.ctx.apps.change(app.clientId, { name: '' })).rejects.toBeInstanceOf(
          RuleViolation,
        );
        expect((await server.ctx.store.apps.find(app.clientId))?.name).toBe('🦊'.repeat(64));
      });

      it('counts the same at the admin API: 64 emoji pass, 65 are refused', async () => {
        const ok = await admin.call('POST', '/v1/admin/apps', {
          name: '🦊'.repeat(64),
          emoji: '📚',
          redirect_uris: [REDIRECT_URI],
        });
        expect(ok.status).toBe(200);
        const refused = await admin.call('POST', '/v1/admin/apps', {
          name: '🦊'.repeat(65),
          emoji: '📚',
          redirect_uris: [REDIRECT_URI],
        });
        expect(refused.status).toBe(400);
      });
    });

    describe('the nonce and state limits, on every authorization path', () => {
      const longNonce = 'n'.repeat(5000);
      const longState = 's'.repeat(3000);

      async function getAuthorize(browser: Browser, extra: Record<string, string>): Promise<URL> {
        const query = new URLSearchParams({
          client_id: client.clientId,
          redirect_uri: REDIRECT_URI,
          ...extra,
        });
        const response = await browser.call('GET', `/v1/oauth2/authorize?${query.toString()}`);
        expect(response.status).toBe(302);
        return new URL(response.headers.get('location')!);
      }

      it('GET with prompt=none and a remembered consent: a 5,000-character nonce gets invalid_request, no code', async () => {
        const { browser } = await signedInUser(server);
        await obtainCode(browser, client);
        const location = await getAuthorize(browser, { prompt: 'none', nonce: longNonce, state: 'x' });
        expect(location.origin + location.pathname).toBe(REDIRECT_URI);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('code')).toBeNull();
        // 1,024 characters are allowed.
        const allowed = await getAuthorize(browser, { prompt: 'none', nonce: 'n'.repeat(1024) });
        expect(allowed.searchParams.get('code')).not.toBeNull();
      });

      it('GET: a 3,000-character state gets invalid_request', async () => {
        const { browser } = await signedInUser(server);
        await obtainCode(browser, client);
        const location = await getAuthorize(browser, { prompt: 'none', state: longState });
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('code')).toBeNull();
      });

      it("the page's POST: an over-long nonce or state is refused (400), no code", async () => {
        const { browser } = await signedInUser(server);
        for (const extra of [{ nonce: longNonce }, { state: longState }]) {
          const response = await browser.call('POST', '/v1/oauth2/authorize', {
            client_id: client.clientId,
            redirect_uri: REDIRECT_URI,
            decision: 'allow',
            ...extra,
          });
          expect(response.status).toBe(400);
        }
      });
    });
  },
);

/** A Campux SQLite file with one app whose name is `name`. */
function campuxFileWithApp(folder: string, name: string): string {
  const file = join(folder, 'campux.db');
  const db = new SqliteDatabase(file);
  db.exec(
    'create table o_auth_app_pos (name text, emoji text, client_id text, client_secret text, created_at datetime)',
  );
  db.prepare('insert into o_auth_app_pos values (?, ?, ?, ?, ?)').run(
    name,
    '🎓',
    'LongNameClient01',
    'a7c1ad6b-3f35-4a2c-9d1e-1c0e2f4b5a6d',
    '2024-04-18 08:49:37.275+08:00',
  );
  db.close();
  return file;
}

describeEachDatabase('the app-name rule in the Campux import', (database) => {
  let opened: OpenedStore;
  let folder: string;
  beforeAll(async () => {
    opened = await openFreshStore(database);
    await opened.store.migrate();
    folder = mkdtempSync(join(tmpdir(), 'campus-sso-one-rule-'));
  });
  afterAll(async () => {
    await opened.dispose();
    rmSync(folder, { recursive: true, force: true });
  });

  it('cuts a longer name to 64 code points, never inside a character', async () => {
    const file = campuxFileWithApp(folder, '🦊'.repeat(70));
    await importCampux(opened.store, { now: () => Date.now() }, file);
    const app = await opened.store.apps.find('LongNameClient01');
    expect(app?.name).toBe('🦊'.repeat(64));
  });
});

/**
 * Signing in with the school's directory (docs/interface.md#the-schools-directory), against a real OpenLDAP
 * (test/helpers/slapd.ts) over StartTLS: a directory user's password is checked by the directory, the account
 * is created on the first sign-in, groups come from memberOf, the same throttle, second factor, audit and amr
 * apply, local users are unaffected, the directory owns directory users' passwords, and an outage refuses only
 * directory users. On SQLite and PostgreSQL.
 */
import { decodeJwt } from 'jose';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Directory } from '../../src/domain/directory.js';
import { EnvelopeCode } from '../../src/shared/envelope.js';
import { describeEachDatabase, freshUin, manualClock, PASSWORD, registerClient } from '../helpers/fixture.js';
import type { Client } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PEOPLE, type TestDirectory, startTestDirectory } from '../helpers/slapd.js';
import { exchangeCode, obtainCode } from '../oauth/support.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

const DIRECTORY_MESSAGE = 'Change your password in the school directory';
/** 2030-01-01T00:00:10Z, within a 30-second TOTP step. */
const START = 1_893_456_010_000;

let directory: TestDirectory;

beforeAll(async () => {
  directory = await startTestDirectory();
  await directory.addGroup('Teachers', []);
  await directory.addGroup('Class 2026 3', []);
  // "Überflieger" is not a group tag ([a-z0-9._-]): skipped and reported, never stored.
  await directory.addGroup('Überflieger', []);
}, 60_000);

afterAll(async () => {
  await directory?.close();
});

/** A person in the directory (with a fresh uin), in the given groups. */
async function directoryPerson(
  groups: readonly string[] = [],
  cn = 'Ada Lovelace',
): Promise<{ uin: number; password: string }> {
  const uin = freshUin();
  const password = `directory password ${uin}`;
  await directory.addPerson({ uin, cn, password, mail: `p${uin}@school.test` });
  for (const group of groups) await directory.addMember(group, uin);
  return { uin, password };
}

async function envelope<T = Record<string, unknown>>(response: Response): Promise<Envelope<T>> {
  return json<Envelope<T>>(response);
}

describeEachDatabase('signing in with the school directory', (database) => {
  let server: TestServer;
  let admin: Browser;
  let client: Client;
  const clock = manualClock(START);

  beforeAll(async () => {
    server = await startTestServer({
      transport: 'inject',
      database,
      clock,
      env: { ...directory.env(), MFA_REQUIRED_GROUPS: '' },
    });
    const adminUin = freshUin();
    await server.ctx.users.create(adminUin, PASSWORD, 'admin');
    admin = new Browser(server);
    expect((await admin.login(adminUin, PASSWORD)).status).toBe(200);
    client = await registerClient(server);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  describe('POST /v1/account/login for a directory person', () => {
    it('signs in with the directory password and creates the account just in time, with name, email and groups', async () => {
      const { uin, password } = await directoryPerson(['Teachers', 'Class 2026 3', 'Überflieger']);
      expect(await server.ctx.store.users.find(uin)).toBeUndefined();

      const browser = new Browser(server);
      const response = await browser.login(uin, password);
      expect(response.status).toBe(200);
      expect((await envelope(response)).data).toEqual({ uin, user_group: 'user' });
      const me = await envelope<{ uin: number; source?: string }>(
        await browser.call('GET', '/v1/account/me'),
      );
      expect(me.data).toMatchObject({ uin, source: 'ldap' });

      const stored = await server.ctx.store.users.find(uin);
      expect(stored).toMatchObject({
        source: 'ldap',
        userGroup: 'user',
        name: 'Ada Lovelace',
        email: `p${uin}@school.test`,
        groups: ['class-2026-3', 'teachers'],
      });
      // No password of theirs is kept here.
      expect(stored?.passwordHash.startsWith('$argon2')).toBe(false);

      const list = await envelope<{ users: { uin: number; source: string; groups: string[] }[] }>(
        await admin.call('GET', `/v1/admin/users?search=${uin}`),
      );
      expect(list.data.users.find((user) => user.uin === uin)).toMatchObject({
        source: 'ldap',
        groups: ['class-2026-3', 'teachers'],
      });

      const audit = await envelope<{
        events: { action: string; outcome: string; detail: Record<string, unknown> | null }[];
      }>(await admin.call('GET', `/v1/admin/audit?uin=${uin}`));
      expect(audit.data.events.map((event) => event.action)).toEqual(
        expect.arrayContaining(['sign_in', 'user_created']),
      );
      // The group that is no group tag was skipped, and the creation says so.
      expect(audit.data.events.find((event) => event.action === 'user_created')?.detail).toMatchObject({
        groups: ['class-2026-3', 'teachers'],
        skipped_groups: [expect.stringMatching(/^cn=Überflieger,/)],
      });
    });

    it('refuses a wrong password with the same answer as a wrong uin (401, code 1), and creates nobody', async () => {
      const { uin } = await directoryPerson();
      const wrong = await new Browser(server).login(uin, 'not the directory password');
      const unknown = await new Browser(server).login(freshUin(), 'whatever password');
      for (const response of [wrong, unknown]) {
        expect(response.status).toBe(401);
        expect(await envelope(response)).toMatchObject({
          code: EnvelopeCode.InvalidRequest,
          msg: 'wrong uin or password',
        });
      }
      expect(await server.ctx.store.users.find(uin)).toBeUndefined();
    });

    it('refuses an empty password at the route (400), and never sends one to the directory', async () => {
      const { uin } = await directoryPerson();
      const response = await new Browser(server).login(uin, '');
      expect(response.status).toBe(400);
      // This slapd accepts a DN with an empty password as an unauthenticated bind: the client must not send it.
      const ldap = server.ctx.passwords.directory as Directory;
      expect((await ldap.signIn(uin, '')).outcome).toBe('refused');
      expect(await server.ctx.store.users.find(uin)).toBeUndefined();
    });

    it('refuses a uin that several directory entries hold (401 code 1), never picking one', async () => {
      const uin = freshUin();
      for (const copy of ['a', 'b', 'c']) {
        await directory.addEntry(`cn=twin-${copy}-${uin},${PEOPLE}`, {
          objectClass: 'inetOrgPerson',
          uid: String(uin),
          cn: `twin-${copy}-${uin}`,
          sn: 'Twin',
          userPassword: 'the same password',
        });
      }
      const response = await new Browser(server).login(uin, 'the same password');
      expect(response.status).toBe(401);
      expect((await envelope(response)).code).toBe(EnvelopeCode.InvalidRequest);
      expect(await server.ctx.store.users.find(uin)).toBeUndefined();
    });

    it('keeps the profile up to date at each sign-in (a renamed person, a new group)', async () => {
      const { uin, password } = await directoryPerson(['Teachers'], 'Grace Murray');
      expect((await new Browser(server).login(uin, password)).status).toBe(200);
      await directory.modifyPerson(uin, 'cn', 'Grace Hopper');
      await directory.addMember('Class 2026 3', uin);
      expect((await new Browser(server).login(uin, password)).status).toBe(200);
      expect(await server.ctx.store.users.find(uin)).toMatchObject({
        name: 'Grace Hopper',
        groups: ['class-2026-3', 'teachers'],
      });
    });

    it('refuses a disabled directory user even with the right directory password', async () => {
      const { uin, password } = await directoryPerson();
      expect((await new Browser(server).login(uin, password)).status).toBe(200);
      await server.ctx.users.setDisabled(uin, true);
      const response = await new Browser(server).login(uin, password);
      expect(response.status).toBe(401);
      expect((await envelope(response)).code).toBe(EnvelopeCode.InvalidRequest);
    });

    it('throttles directory users as local users: the fifth wrong password locks the account (429)', async () => {
      const { uin, password } = await directoryPerson();
      for (let i = 0; i < 5; i++) {
        expect((await new Browser(server).login(uin, `wrong password ${i}`)).status).toBe(401);
      }
      const locked = await new Browser(server).login(uin, password);
      expect(locked.status).toBe(429);
      expect(locked.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('gives a directory user the same amr (pwd) and second factor (TOTP, then pwd otp mfa) as a local user', async () => {
      const { uin, password } = await directoryPerson();
      const browser = new Browser(server);
      expect((await browser.login(uin, password)).status).toBe(200);
      const idTokenAmr = async (signedIn: Browser): Promise<unknown> => {
        const code = await obtainCode(signedIn, client, { scope: 'openid', response_type: 'code' });
        const tokens = await json<{ id_token: string }>(await exchangeCode(server, client, code));
        return decodeJwt(tokens.id_token).amr;
      };
      expect(await idTokenAmr(browser)).toEqual(['pwd']);

      const setup = await envelope<{ secret: string }>(
        await browser.call('POST', '/v1/account/totp/setup', {}),
      );
      const secret = setup.data.secret;
      const totp = (): string => generateSync({ secret, epoch: Math.floor(clock.now() / 1000) });
      expect((await browser.call('POST', '/v1/account/totp/confirm', { code: totp() })).status).toBe(200);
      clock.advance(30_000);

      const pending = new Browser(server);
      const login = await envelope<{ second_factor?: string[] }>(await pending.login(uin, password));
      expect(login.data.second_factor).toContain('totp');
      expect((await pending.call('POST', '/v1/account/login/second-factor', { totp: totp() })).status).toBe(
        200,
      );
      expect(await idTokenAmr(pending)).toEqual(['pwd', 'otp', 'mfa']);

      // Removing the factor asks for the current password: the directory's.
      const removeWrong = await pending.call('DELETE', '/v1/account/totp', { password: 'not it' });
      expect(removeWrong.status).toBe(401);
      expect((await pending.call('DELETE', '/v1/account/totp', { password })).status).toBe(200);
    });
  });

  describe('local users beside the directory', () => {
    it('signs a local user in with the local password even when the directory has the same uin', async () => {
      const { uin, password } = await directoryPerson();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      expect((await new Browser(server).login(uin, PASSWORD)).status).toBe(200);
      expect((await new Browser(server).login(uin, password)).status).toBe(401);
      expect(await server.ctx.store.users.find(uin)).toMatchObject({
        source: 'local',
        name: null,
        groups: [],
      });
    });
  });

  describe('the directory owns directory users’ passwords', () => {
    async function signedInDirectoryUser(): Promise<{ uin: number; password: string; browser: Browser }> {
      const person = await directoryPerson();
      const browser = new Browser(server);
      expect((await browser.login(person.uin, person.password)).status).toBe(200);
      return { ...person, browser };
    }

    it('refuses POST /v1/account/password with "Change your password in the school directory"', async () => {
      const { password, browser } = await signedInDirectoryUser();
      const response = await browser.call('POST', '/v1/account/password', {
        current_password: password,
        new_password: 'a brand new long passphrase 42',
      });
      expect(response.status).toBe(403);
      expect((await envelope(response)).msg).toBe(DIRECTORY_MESSAGE);
    });

    it('refuses an admin password reset and a reset code for a directory user, with the same message', async () => {
      const { uin } = await signedInDirectoryUser();
      // Whatever the password: a weak one is not told the password rule, but where to change it.
      for (const password of ['a brand new long passphrase 42', 'abc']) {
        const reset = await admin.call('PATCH', `/v1/admin/users/${uin}`, { password });
        expect(reset.status).toBe(403);
        expect((await envelope(reset)).msg).toBe(DIRECTORY_MESSAGE);
      }
      const code = await admin.call('POST', `/v1/admin/users/${uin}/reset-code`);
      expect(code.status).toBe(403);
      expect((await envelope(code)).msg).toBe(DIRECTORY_MESSAGE);
      expect(await server.ctx.store.resetCodes.take(uin, 'x'.repeat(64), clock.now())).toBe(false);
    });

    it('refuses POST /v1/account/password-reset for a directory user with the same message', async () => {
      const { uin } = await signedInDirectoryUser();
      for (const newPassword of ['a brand new long passphrase 42', 'password']) {
        const response = await new Browser(server).call('POST', '/v1/account/password-reset', {
          uin,
          code: 'ABCD-EFGH-JKMN',
          new_password: newPassword,
        });
        expect(response.status).toBe(403);
        expect((await envelope(response)).msg).toBe(DIRECTORY_MESSAGE);
      }
    });

    it('still lets an admin reset a local user’s password', async () => {
      const uin = freshUin();
      await server.ctx.users.create(uin, PASSWORD, 'member');
      const reset = await admin.call('PATCH', `/v1/admin/users/${uin}`, {
        password: 'a brand new long passphrase 42',
      });
      expect(reset.status).toBe(200);
    });
  });

  describe('the connection to the directory', () => {
    it('signs in over ldaps:// as over ldap:// with StartTLS', async () => {
      const { uin, password } = await directoryPerson();
      const ldaps = await startTestServer({
        transport: 'inject',
        database,
        env: directory.env({ LDAP_URL: directory.ldapsUrl }),
      });
      try {
        expect((await new Browser(ldaps).login(uin, password)).status).toBe(200);
        expect(await ldaps.ctx.store.users.find(uin)).toMatchObject({ source: 'ldap' });
      } finally {
        await ldaps.close();
      }
    });

    it('treats a certificate it cannot trust as an outage (503 code 10), never falling back to plain text', async () => {
      const { uin, password } = await directoryPerson();
      const env = directory.env();
      delete env.LDAP_CA_FILE;
      const untrusting = await startTestServer({ transport: 'inject', database, env });
      try {
        const response = await new Browser(untrusting).login(uin, password);
        expect(response.status).toBe(503);
        expect((await envelope(response)).code).toBe(EnvelopeCode.DirectoryUnavailable);
        expect(await untrusting.ctx.store.users.find(uin)).toBeUndefined();
      } finally {
        await untrusting.close();
      }
    });
  });

  describe('a directory outage', () => {
    it('refuses only directory users (503, code 10, naming the directory), keeps /readyz ready, and recovers by itself', async () => {
      const { uin, password } = await directoryPerson();
      expect((await new Browser(server).login(uin, password)).status).toBe(200);
      const localUin = freshUin();
      await server.ctx.users.create(localUin, PASSWORD, 'member');
      const adminUin = freshUin();
      await server.ctx.users.create(adminUin, PASSWORD, 'admin');

      await directory.stop();
      try {
        for (const who of [uin, freshUin()]) {
          const refused = await new Browser(server).login(who, password);
          expect(refused.status).toBe(503);
          const body = await envelope(refused);
          expect(body.code).toBe(EnvelopeCode.DirectoryUnavailable);
          expect(body.msg).toMatch(/school directory/);
        }
        // Not checked, so not counted: the outage never locks anybody out afterwards.
        for (let i = 0; i < 6; i++) expect((await new Browser(server).login(uin, password)).status).toBe(503);
        expect((await new Browser(server).login(localUin, PASSWORD)).status).toBe(200);
        expect((await new Browser(server).login(adminUin, PASSWORD)).status).toBe(200);
        expect((await server.fetch(`/readyz`)).status).toBe(200);
      } finally {
        await directory.start();
      }
      expect((await new Browser(server).login(uin, password)).status).toBe(200);
    });
  });
});

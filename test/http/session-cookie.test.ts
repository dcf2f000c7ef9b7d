/**
 * docs/interface.md#sessions-and-sign-out: the session cookie is `__Host-campus_sso_session` under an https
 * BASE_URL, and several same-named session cookies are resolved one consistent way: the one naming a live
 * session is used; when more than one does, none is.
 */
import { beforeAll, expect, it } from 'vitest';
import { type DatabaseSuiteOptions, describeOnDatabases } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';

const PASSWORD = 'a long enough password';
const PUBLIC_ORIGIN = 'https://sso.example.edu';

const HTTPS: DatabaseSuiteOptions = { transport: 'inject', env: { BASE_URL: PUBLIC_ORIGIN } };

describeOnDatabases('the session cookie under an https BASE_URL', HTTPS, ({ server }) => {
  beforeAll(async () => {
    await server.ctx.users.create(6_000_000_001, PASSWORD, 'user');
  });

  const me = (cookie: string): Promise<Response> => server.fetch(`/v1/account/me`, { headers: { cookie } });

  it('is named __Host-campus_sso_session, with Secure and Path=/ and no Domain', async () => {
    const browser = new Browser(server);
    const answer = await browser.call(
      'POST',
      '/v1/account/login',
      { uin: 6_000_000_001, password: PASSWORD },
      { origin: PUBLIC_ORIGIN },
    );
    expect(answer.status).toBe(200);
    const attributes = (answer.headers.get('set-cookie') ?? '').split(';').map((a) => a.trim());
    expect(attributes[0]).toMatch(/^__Host-campus_sso_session=[A-Za-z0-9_-]{43}$/);
    expect(attributes.map((a) => a.toLowerCase())).toEqual(expect.arrayContaining(['secure', 'path=/']));
    expect(attributes.some((a) => /^domain=/i.test(a))).toBe(false);
    expect((await me(browser.sessionCookie ?? '')).status).toBe(200);
  });

  it('is not read under its unprefixed name, which a sibling host could have planted', async () => {
    const browser = new Browser(server);
    await browser.call(
      'POST',
      '/v1/account/login',
      { uin: 6_000_000_001, password: PASSWORD },
      { origin: PUBLIC_ORIGIN },
    );
    const id = (browser.sessionCookie ?? '').split('=')[1] ?? '';
    expect((await me(`campus_sso_session=${id}`)).status).toBe(401);
  });
});

describeOnDatabases('several session cookies in one request', { transport: 'inject' }, ({ server }) => {
  beforeAll(async () => {
    await server.ctx.users.create(6_000_000_002, PASSWORD, 'user');
    await server.ctx.users.create(6_000_000_003, PASSWORD, 'user');
  });

  async function sessionId(uin: number): Promise<string> {
    const browser = new Browser(server);
    expect((await browser.login(uin, PASSWORD)).status).toBe(200);
    return (browser.sessionCookie ?? '').split('=')[1] ?? '';
  }

  const me = (cookie: string): Promise<Response> => server.fetch(`/v1/account/me`, { headers: { cookie } });

  it('uses the one that names a live session, whichever comes first', async () => {
    const id = await sessionId(6_000_000_002);
    for (const cookie of [
      `campus_sso_session=zzz; campus_sso_session=${id}`,
      `campus_sso_session=${id}; campus_sso_session=zzz`,
    ]) {
      const answer = await me(cookie);
      expect(answer.status, cookie).toBe(200);
      expect(await answer.json()).toMatchObject({ data: { uin: 6_000_000_002 } });
    }
  });

  it('uses none when two name live sessions', async () => {
    const first = await sessionId(6_000_000_002);
    const second = await sessionId(6_000_000_003);
    const answer = await me(`campus_sso_session=${first}; campus_sso_session=${second}`);
    expect(answer.status).toBe(401);
  });

  it('ends every one of them at sign-in, so the fresh session is unambiguous', async () => {
    const first = await sessionId(6_000_000_002);
    const second = await sessionId(6_000_000_003);
    const browser = new Browser(server);
    const answer = await browser.call(
      'POST',
      '/v1/account/login',
      { uin: 6_000_000_002, password: PASSWORD },
      { cookie: `campus_sso_session=${first}; campus_sso_session=${second}` },
    );
    expect(answer.status).toBe(200);
    expect((await me(`campus_sso_session=${first}`)).status).toBe(401);
    expect((await me(`campus_sso_session=${second}`)).status).toBe(401);
    expect((await me(browser.sessionCookie ?? '')).status).toBe(200);
  });
});

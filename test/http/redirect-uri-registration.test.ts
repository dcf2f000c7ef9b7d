/**
 * docs/security.md: redirect URIs are registered only in their canonical form (WHATWG URL serialization), so
 * what is stored is exactly what a browser is sent to. A URI with credentials, a backslash or whitespace, or
 * one whose canonical form differs from what was typed, is refused with the reason.
 */
import { expect, it } from 'vitest';
import { describeOnDatabases } from '../helpers/fixture.js';

const APP = { name: 'Library', emoji: '📚' };
const SUITE = { transport: 'inject', user: { group: 'admin', uin: 10_001 } } as const;

describeOnDatabases('POST and PATCH /v1/admin/apps redirect URIs', SUITE, ({ server, user }) => {
  const admin = user.browser;

  it.each([
    ['https:/\\evil.example', /backslash/],
    ['https://user:pass@library.example.edu/cb', /user name or password/],
    [' https://library.example.edu/cb', /whitespace/],
    ['https://library.example.edu/cb\n', /whitespace/],
    ['http://0x7f000001/', /canonical form; write it as http:\/\/127\.0\.0\.1\/$/],
    ['HTTPS://A.example/', /canonical form; write it as https:\/\/a\.example\/$/],
  ])('refuses %j with 400 code 1 and the reason', async (uri, reason) => {
    const answer = await admin.call('POST', '/v1/admin/apps', { ...APP, redirect_uris: [uri] });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { code: number; msg: string };
    expect(body.code).toBe(1);
    expect(body.msg).toContain(`redirect URI ${JSON.stringify(uri)}`);
    expect(body.msg).toMatch(reason);
  });

  it('refuses a non-canonical form when an app is edited too', async () => {
    const created = await admin.call('POST', '/v1/admin/apps', {
      ...APP,
      redirect_uris: ['https://library.example.edu/cb'],
    });
    expect(created.status).toBe(200);
    const { data } = (await created.json()) as { data: { app: { client_id: string } } };
    const answer = await admin.call('PATCH', `/v1/admin/apps/${data.app.client_id}`, {
      redirect_uris: ['https://library.example.edu:443/cb'],
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { msg: string }).msg).toMatch(
      /write it as https:\/\/library\.example\.edu\/cb/,
    );
  });

  it('stores a canonical URI exactly as typed', async () => {
    const uri = 'https://library.example.edu/cb?tenant=a%20b';
    const answer = await admin.call('POST', '/v1/admin/apps', { ...APP, redirect_uris: [uri] });
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as { data: { app: { client_id: string } } };
    expect((await server.ctx.store.apps.find(data.app.client_id))?.redirectUris).toEqual([uri]);
  });
});

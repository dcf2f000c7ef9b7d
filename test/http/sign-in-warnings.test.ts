/**
 * docs/interface.md#browser-session-api: warnings before harm. A wrong password that leaves one try before
 * the lock says so (`data.next_failure_locks_for`), the one that locks says for how long (`data.locked_for`),
 * alike for a known and an unknown uin; and `app-info` reports an authorization request the app got wrong
 * (`request_error`) so the page shows it before sign-in.
 */
import { describe, expect, it } from 'vitest';
import { PASSWORD, REDIRECT_URI, describeOnDatabases, freshUin } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';

async function dataOf(response: Response): Promise<{ status: number; code: number; data: unknown }> {
  const body = (await response.json()) as { code: number; data: unknown };
  return { status: response.status, code: body.code, data: body.data };
}

describeOnDatabases('warnings before harm', { transport: 'inject', client: true }, ({ server, client }) => {
  describe('POST /v1/account/login', () => {
    it.each(['known', 'unknown'])(
      'warns on the fourth wrong password that the fifth locks for 30 s, then says it locked (%s uin)',
      async (kind) => {
        const uin = freshUin();
        if (kind === 'known') await server.ctx.users.create(uin, PASSWORD, 'user');
        const browser = new Browser(server);
        const answers = [];
        for (let i = 0; i < 5; i++) answers.push(await dataOf(await browser.login(uin, 'a wrong guess')));
        const wrong = { status: 401, code: 1 };
        expect(answers).toEqual([
          { ...wrong, data: {} },
          { ...wrong, data: {} },
          { ...wrong, data: {} },
          { ...wrong, data: { next_failure_locks_for: 30 } },
          { ...wrong, data: { locked_for: 30 } },
        ]);
        expect((await browser.login(uin, PASSWORD)).status).toBe(429);
      },
    );
  });

  describe('GET /v1/oauth2/app-info', () => {
    const base = (): Record<string, string> => ({
      client_id: client.clientId,
      redirect_uri: REDIRECT_URI,
      state: 's 1',
    });

    it('reports an unsupported response_type with the URL that takes the error back to the app', async () => {
      const query = new URLSearchParams({ ...base(), response_type: 'token' });
      const answer = await new Browser(server).call('GET', `/v1/oauth2/app-info?${query}`);
      const body = (await answer.json()) as {
        data: { name: string; request_error?: { error: string; redirect_to: string } };
      };
      expect(answer.status).toBe(200);
      expect(body.data.name).toBe('Library');
      expect(body.data.request_error?.error).toBe('unsupported_response_type');
      const back = new URL(body.data.request_error?.redirect_to ?? '');
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
      expect(back.searchParams.get('error')).toBe('unsupported_response_type');
      expect(back.searchParams.get('state')).toBe('s 1');
    });

    it('reports an unknown PKCE method as invalid_request', async () => {
      const query = new URLSearchParams({
        ...base(),
        response_type: 'code',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S512',
      });
      const answer = await new Browser(server).call('GET', `/v1/oauth2/app-info?${query}`);
      const body = (await answer.json()) as { data: { request_error?: Record<string, string> } };
      expect(body.data.request_error?.error).toBe('invalid_request');
    });

    it('says nothing of the kind for a good request, legacy (no response_type) or standard', async () => {
      const extras: Record<string, string>[] = [{}, { response_type: 'code', scope: 'openid profile' }];
      for (const extra of extras) {
        const query = new URLSearchParams({ ...base(), ...extra });
        const answer = await new Browser(server).call('GET', `/v1/oauth2/app-info?${query}`);
        const body = (await answer.json()) as { data: Record<string, unknown> };
        expect(answer.status).toBe(200);
        expect(body.data).not.toHaveProperty('request_error');
      }
    });
  });
});

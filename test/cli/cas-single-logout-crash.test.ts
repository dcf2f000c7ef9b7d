/**
 * CAS single logout survives a crash (docs/interface.md#cas-protocol): a `campus-sso serve` killed with
 * SIGKILL between a sign-out and the delivery of its `logoutRequest` loses nothing — the next server on the
 * database delivers it once the service is reachable. The app is registered with the command line
 * (`app add --cas-service`, repeatable) and shows in `app list`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/fixture.js';
import { Browser } from '../helpers/http.js';
import { LogoutReceiver, deliveryAttempted } from '../helpers/logout-receiver.js';
import { TEST_SECRET_KEY, freshPostgresSchema } from '../helpers/server.js';
import { type ServeProcess, ensureBuilt, runCli, serveWithBaseUrl } from './cli-process.js';

const UIN = 10_001;
const PASSWORD = 'a long operator password';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-cas-'));
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEachDatabase('CAS single logout across a SIGKILL', (database) => {
  it('is delivered by the next server after the one that queued it was killed', async () => {
    let databaseUrl: string;
    let drop = async (): Promise<void> => undefined;
    if (database === 'sqlite') {
      databaseUrl = `sqlite:${join(dir, 'sso.sqlite')}`;
    } else {
      const schema = await freshPostgresSchema();
      databaseUrl = schema.url;
      drop = schema.drop;
    }
    const env = {
      DATABASE_URL: databaseUrl,
      SECRET_KEY: TEST_SECRET_KEY,
      MFA_REQUIRED_GROUPS: '',
    };
    // The app is down until the first server is killed: its endpoint answers 503 (a failed delivery).
    const receiver = await new LogoutReceiver().start();
    receiver.down = true;
    const service = receiver.uri;
    let serve: ServeProcess | undefined;
    try {
      expect(
        (
          await runCli(
            ['user', 'add', '--uin', String(UIN), '--group', 'admin', '--password-stdin'],
            env,
            PASSWORD,
          )
        ).code,
      ).toBe(0);
      const added = await runCli(
        [
          'app',
          'add',
          '--name',
          'Library',
          '--emoji',
          '📚',
          '--cas-service',
          service,
          '--cas-service',
          'https://lib.example.edu/',
        ],
        env,
      );
      expect(added.code).toBe(0);
      const { client_id: clientId } = JSON.parse(added.stdout) as { client_id: string };
      const listed = await runCli(['app', 'list'], env);
      expect(JSON.parse(listed.stdout.trim().split('\n')[0] ?? '')).toMatchObject({
        client_id: clientId,
        redirect_uris: [],
        cas_services: [service, 'https://lib.example.edu/'],
      });
      const refused = await runCli(
        ['app', 'add', '--name', 'X', '--emoji', '📚', '--cas-service', 'http://x.example/'],
        env,
      );
      expect(refused.code).toBe(2);

      let baseUrl: string;
      ({ serve, baseUrl } = await serveWithBaseUrl(env));
      const browser = new Browser(baseUrl);
      expect((await browser.login(UIN, PASSWORD)).status).toBe(200);
      const login = await browser.call('GET', `/cas/login?service=${encodeURIComponent(service)}`);
      const ticket = new URL(login.headers.get('location') ?? '').searchParams.get('ticket') ?? '';
      const validated = await fetch(
        `${baseUrl}/cas/serviceValidate?${new URLSearchParams({ ticket, service }).toString()}`,
      );
      expect(await validated.text()).toContain('<cas:user>10001</cas:user>');

      // The service is down: its address answers 503. The sign-out queues the logoutRequest.
      expect((await browser.call('GET', '/cas/logout')).status).toBe(200);
      const admin = new Browser(baseUrl);
      await admin.login(UIN, PASSWORD);
      await deliveryAttempted(admin, clientId);
      serve.child.kill('SIGKILL');
      await new Promise((resolve) => serve?.child.once('exit', resolve));

      receiver.down = false;
      ({ serve } = await serveWithBaseUrl(env));
      const [delivered] = await receiver.waitFor(1, 20_000);
      const request = new URLSearchParams(delivered?.body).get('logoutRequest') ?? '';
      expect(request).toContain(`<samlp:SessionIndex>${ticket}</samlp:SessionIndex>`);
    } finally {
      await serve?.stop();
      await receiver.stop();
      await drop();
    }
  }, 90_000);
});

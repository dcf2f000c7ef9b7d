/**
 * Back-channel logouts survive a crash (docs/interface.md#sessions-and-sign-out): a `campus-sso serve` killed
 * with SIGKILL between a sign-out and its delivery loses nothing — the next server on the database delivers
 * it once the app is reachable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/fixture.js';
import { Browser, json } from '../helpers/http.js';
import { LogoutReceiver, deliveryAttempted } from '../helpers/logout-receiver.js';
import { TEST_SECRET_KEY, freshPostgresSchema } from '../helpers/server.js';
import { type ServeProcess, ensureBuilt, runCli, serveWithBaseUrl } from './cli-process.js';

const ADMIN_UIN = 10_001;
const PASSWORD = 'a long operator password';
const REDIRECT_URI = 'https://app.example.edu/callback';

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'campus-sso-backchannel-'));
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Signs in, registers an app with a back-channel URI, and gets an id_token; answers the browser and sid. */
async function signedInToApp(
  baseUrl: string,
  backchannelUri: string,
): Promise<{ browser: Browser; sid: string; clientId: string }> {
  const browser = new Browser(baseUrl);
  expect((await browser.login(ADMIN_UIN, PASSWORD)).status).toBe(200);
  const created = await browser.call('POST', '/v1/admin/apps', {
    name: 'Library',
    emoji: '📚',
    redirect_uris: [REDIRECT_URI],
    backchannel_logout_uri: backchannelUri,
  });
  const { app, client_secret } = (
    await json<{ data: { app: { client_id: string }; client_secret: string } }>(created)
  ).data;
  const authorized = await browser.call('POST', '/v1/oauth2/authorize', {
    client_id: app.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    decision: 'allow',
  });
  const redirectTo = (await json<{ data: { redirect_to: string } }>(authorized)).data.redirect_to;
  const code = new URL(redirectTo).searchParams.get('code') ?? '';
  const tokens = await fetch(`${baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.client_id}:${client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
    }).toString(),
  });
  const { id_token } = await json<{ id_token: string }>(tokens);
  return { browser, sid: String(decodeJwt(id_token).sid), clientId: app.client_id };
}

// The server runs as `campus-sso serve` processes the test kills, so the suite starts no test server itself.
describeEachDatabase('back-channel logout across a SIGKILL', (database) => {
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
      // Instances of one PostgreSQL database share the key-encryption key; admins sign in with a password.
      SECRET_KEY: TEST_SECRET_KEY,
      MFA_REQUIRED_GROUPS: '',
    };
    // The app is down until the first server is killed: its endpoint answers 503 (a failed delivery).
    const receiver = await new LogoutReceiver().start();
    receiver.down = true;
    let serve: ServeProcess | undefined;
    try {
      const added = await runCli(
        ['user', 'add', '--uin', String(ADMIN_UIN), '--group', 'admin', '--password-stdin'],
        env,
        PASSWORD,
      );
      expect(added.code).toBe(0);
      let baseUrl: string;
      ({ serve, baseUrl } = await serveWithBaseUrl(env));

      // The app is down: its back-channel endpoint answers 503.
      const { browser, sid, clientId } = await signedInToApp(baseUrl, receiver.uri);
      expect((await browser.call('POST', '/v1/account/logout')).status).toBe(200);
      // Killed once the first attempt has failed (a kill in the middle of an attempt leaves a claim that
      // holds the row until its lease runs out: the same outcome, later).
      const admin = new Browser(baseUrl);
      await admin.login(ADMIN_UIN, PASSWORD);
      await deliveryAttempted(admin, clientId);
      serve.child.kill('SIGKILL');
      await new Promise((resolve) => serve?.child.once('exit', resolve));

      receiver.down = false;
      ({ serve } = await serveWithBaseUrl(env));
      const [delivered] = await receiver.waitFor(1, 20_000);
      const payload = decodeJwt(delivered?.logoutToken ?? '');
      expect(payload).toMatchObject({ sid, sub: String(ADMIN_UIN) });
    } finally {
      await serve?.stop();
      await receiver.stop();
      await drop();
    }
  }, 60_000);
});

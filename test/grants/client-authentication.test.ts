/**
 * `authenticateClient` (RFC 6749 §2.3.1, RFC 7617 §2), one `it` per rule, called directly on a real SQLite
 * store: no HTTP, an answer in seconds. The same rules over HTTP: test/oauth/token.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { authenticateClient, type ClientAuthenticationInput } from '../../src/oauth/client-authentication.js';
import { InvalidClient, InvalidRequest } from '../../src/oauth/errors.js';
import { useGrantWorld } from './grant-context.js';

/** RFC 6749 §2.3.1: id and secret form-urlencoded, then joined by ":" and base64-encoded (RFC 7617 §2). */
function basic(id: string, secret: string): string {
  const encode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
}

const NOTHING: ClientAuthenticationInput = {
  authorization: undefined,
  clientId: undefined,
  clientSecret: undefined,
};

describe('authenticateClient', () => {
  const world = useGrantWorld();

  const authenticate = (input: Partial<ClientAuthenticationInput>) =>
    authenticateClient(world().ctx, { ...NOTHING, ...input });

  /** Answers the invalid_client error `input` is refused with. */
  async function refusal(input: Partial<ClientAuthenticationInput>): Promise<InvalidClient> {
    const error = await authenticate(input).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InvalidClient);
    return error as InvalidClient;
  }

  it('accepts client_secret_basic', async () => {
    const { app, secret } = await world().client();
    expect((await authenticate({ authorization: basic(app.clientId, secret) })).clientId).toBe(app.clientId);
  });

  it('accepts client_secret_post', async () => {
    const { app, secret } = await world().client();
    expect((await authenticate({ clientId: app.clientId, clientSecret: secret })).clientId).toBe(
      app.clientId,
    );
  });

  it('form-urldecodes the Basic credentials, however much was encoded (RFC 6749 §2.3.1)', async () => {
    const { app, secret } = await world().client();
    const encodeAll = (value: string): string =>
      [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
    const header = `Basic ${Buffer.from(`${encodeAll(app.clientId)}:${encodeAll(secret)}`).toString('base64')}`;
    expect((await authenticate({ authorization: header })).clientId).toBe(app.clientId);
  });

  it('reads the scheme name case-insensitively (RFC 7617 §2)', async () => {
    const { app, secret } = await world().client();
    const header = basic(app.clientId, secret).replace('Basic', 'bAsIc');
    expect((await authenticate({ authorization: header })).clientId).toBe(app.clientId);
  });

  it('refuses two authentication methods in one request with invalid_request (RFC 6749 §2.3)', async () => {
    const { app, secret } = await world().client();
    await expect(
      authenticate({ authorization: basic(app.clientId, secret), clientSecret: secret }),
    ).rejects.toBeInstanceOf(InvalidRequest);
  });

  it('accepts a client_id in the body beside Basic only when it names the same client', async () => {
    const { app, secret } = await world().client();
    const { app: other } = await world().client();
    const authorization = basic(app.clientId, secret);
    expect((await authenticate({ authorization, clientId: app.clientId })).clientId).toBe(app.clientId);
    await expect(authenticate({ authorization, clientId: other.clientId })).rejects.toBeInstanceOf(
      InvalidRequest,
    );
  });

  it('refuses a request without credentials: every client is confidential (RFC 6749 §2.3.1)', async () => {
    const { app } = await world().client();
    expect((await refusal({})).usedBasicAuth).toBe(false);
    expect((await refusal({ clientId: app.clientId })).usedBasicAuth).toBe(false);
  });

  it('refuses a wrong secret, and remembers Basic was used so the answer carries a Basic challenge', async () => {
    const { app } = await world().client();
    expect((await refusal({ authorization: basic(app.clientId, 'wrong secret') })).usedBasicAuth).toBe(true);
    expect((await refusal({ clientId: app.clientId, clientSecret: 'wrong secret' })).usedBasicAuth).toBe(
      false,
    );
  });

  it('refuses an unknown client_id with the same error as a wrong secret', async () => {
    const { app } = await world().client();
    const unknown = await refusal({ authorization: basic('AAAAAAAAAAAAAAAA', 'whatever') });
    const wrong = await refusal({ authorization: basic(app.clientId, 'whatever') });
    expect(unknown.description).toBe(wrong.description);
  });

  it('refuses a disabled client (RFC 6749 §5.2 invalid_client)', async () => {
    const { app, secret } = await world().client();
    await world().ctx.store.apps.update(app.clientId, { disabled: true });
    await refusal({ authorization: basic(app.clientId, secret) });
  });

  it('refuses a malformed Basic header: not base64, no ":", not UTF-8, or not form-urlencoded (RFC 7617 §2)', async () => {
    const base64 = (bytes: Buffer | string): string => `Basic ${Buffer.from(bytes).toString('base64')}`;
    for (const authorization of [
      'Basic',
      'Basic !!!',
      base64('no-colon-here'),
      base64(Buffer.from([0x61, 0x3a, 0xff])),
      base64('%zz:secret'),
    ]) {
      expect((await refusal({ authorization })).usedBasicAuth, authorization).toBe(true);
    }
  });

  it('ignores an Authorization header of another scheme and reads the body', async () => {
    const { app, secret } = await world().client();
    const answer = await authenticate({
      authorization: 'Bearer abc',
      clientId: app.clientId,
      clientSecret: secret,
    });
    expect(answer.clientId).toBe(app.clientId);
  });
});

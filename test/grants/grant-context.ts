/**
 * The fast layer's fixture: the grant rules called directly, without HTTP, against a real SQLite store in a
 * temporary file (the ory/fosite way: grant handlers tested against a store). Codes are issued by the same
 * `decideAuthorization` the page's call uses, so a code here is exactly what a browser would bring back.
 */
import { afterEach, beforeEach } from 'vitest';
import { type AppContext, createAppContext } from '../../src/app-context.js';
import { loadConfig } from '../../src/config/config.js';
import { decideAuthorization } from '../../src/oauth/authorization/authorize.js';
import type { AuthorizationParams } from '../../src/oauth/authorization/request.js';
import { credentialKey } from '../../src/oauth/credentials.js';
import type { AccessTokenRecord, AppRecord, RefreshTokenRecord, UserGroup } from '../../src/storage/store.js';
import { type OpenedStore, openFreshStore } from '../helpers/databases.js';

export const REDIRECT_URI = 'https://app.example.edu/callback';
export const PASSWORD = 'correct horse battery staple';

/** A clock the test moves by hand. */
export interface ManualClock {
  now(): number;
  advance(milliseconds: number): void;
}

export interface GrantWorld {
  readonly ctx: AppContext;
  readonly clock: ManualClock;
  /** A new enabled user; answers the uin. */
  user(group?: UserGroup): Promise<number>;
  /** A new registered app and its secret. */
  client(redirectUris?: readonly string[]): Promise<{ app: AppRecord; secret: string }>;
  /** An authorization code `uin` approved for `app` (parameters as the page sends them). */
  code(app: AppRecord, uin: number, params?: AuthorizationParams): Promise<string>;
  accessToken(value: string): Promise<AccessTokenRecord | undefined>;
  refreshToken(value: string): Promise<RefreshTokenRecord | undefined>;
}

/**
 * Declares a fresh migrated SQLite database and application context for every test of the calling file;
 * read `world()` inside a test.
 */
export function useGrantWorld(): () => GrantWorld {
  let opened: OpenedStore | undefined;
  let current: GrantWorld | undefined;

  beforeEach(async () => {
    opened = await openFreshStore('sqlite');
    await opened.store.migrate();
    let now = Date.UTC(2026, 0, 1, 8);
    const clock: ManualClock = {
      now: () => now,
      advance: (milliseconds) => {
        now += milliseconds;
      },
    };
    const ctx = createAppContext(
      loadConfig({ DATABASE_URL: opened.url, LOG_LEVEL: 'silent' }),
      opened.store,
      clock,
    );
    let nextUin = 10_000;
    current = {
      ctx,
      clock,
      async user(group = 'member') {
        nextUin += 1;
        if ((await ctx.users.create(nextUin, PASSWORD, group)) === undefined) throw new Error('uin taken');
        return nextUin;
      },
      async client(redirectUris = [REDIRECT_URI]) {
        const { app, clientSecret } = await ctx.apps.create({ name: 'Library', emoji: '📚', redirectUris });
        return { app, secret: clientSecret };
      },
      async code(app, uin, params = {}) {
        const { session } = await ctx.sessions.start(uin);
        const outcome = await decideAuthorization(
          ctx,
          session,
          { client_id: app.clientId, redirect_uri: REDIRECT_URI, response_type: 'code', ...params },
          'allow',
        );
        if (!('response' in outcome)) throw new Error('the session must sign in again');
        const code = outcome.response.parameters.code;
        if (code === undefined) throw new Error(`no code: ${JSON.stringify(outcome.response)}`);
        return code;
      },
      accessToken: (value) => ctx.store.tokens.findAccessToken(credentialKey(value)),
      refreshToken: (value) => ctx.store.tokens.findRefreshToken(credentialKey(value)),
    };
  });
  afterEach(async () => {
    current = undefined;
    await opened?.dispose();
    opened = undefined;
  });

  return () => {
    if (current === undefined) throw new Error('useGrantWorld: read the world inside a test');
    return current;
  };
}

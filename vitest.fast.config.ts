/**
 * `npm run test:fast`: the layers that run in-process — domain, grants, configuration, storage, and the HTTP,
 * OAuth, CAS and device suites that reach the server through `app.inject` — on both databases. Left to
 * `npm test`: suites that need a socket or another process (browser, CLI, slapd, TCP proxies, third-party
 * clients, raw connections), the upgrade fixtures, and the timing and property suites that take minutes.
 */
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Spread, not mergeConfig: that would add these lists to the base's `include` instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // The quick loop runs on SQLite only; `npm test` runs everything on both databases.
    env: { ...base.test?.env, TEST_DATABASES: 'sqlite' },
    include: [
      'test/domain/**/*.test.ts',
      'test/grants/**/*.test.ts',
      'test/config/**/*.test.ts',
      'test/docs/**/*.test.ts',
      'test/storage/**/*.test.ts',
      'test/http/**/*.test.ts',
      'test/oauth/**/*.test.ts',
      'test/cas/**/*.test.ts',
      'test/device/**/*.test.ts',
    ],
    exclude: [
      ...configDefaults.exclude,
      // Built files and fixture databases of every release.
      'test/storage/upgrade.test.ts',
      // Raw sockets, a `campus-sso serve` process, TCP proxies, a third-party client over HTTP.
      'test/http/request-hardening.test.ts',
      'test/http/database-outage.test.ts',
      'test/http/login-throttle-outage.test.ts',
      'test/oauth/code-exchange-outage.test.ts',
      'test/oauth/code-exchange-retry.test.ts',
      'test/oauth/oidc.test.ts',
      'test/oauth/backchannel-logout.test.ts',
      'test/device/openid-client.test.ts',
    ],
  },
});

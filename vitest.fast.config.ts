/**
 * `npm run test:fast`: the quick loop while editing — the in-process layers (domain, grants, configuration,
 * storage, the OpenAPI document, and one suite per HTTP layer over `app.inject`) on SQLite alone, in about
 * half a minute. `npm test` runs every suite on both databases, with browsers, processes and peers.
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
    // One module graph per worker instead of one per file: the server's modules load twice, not twenty times.
    isolate: false,
    include: [
      'test/domain/**/*.test.ts',
      'test/grants/**/*.test.ts',
      'test/config/**/*.test.ts',
      'test/docs/**/*.test.ts',
      'test/storage/**/*.test.ts',
      // The HTTP layer's hardening of every route, over app.inject. The rest of test/http, test/oauth,
      // test/cas and test/device run in `npm test`.
      'test/http/hardening.test.ts',
    ],
    exclude: [
      ...configDefaults.exclude,
      // Built files and fixture databases of every release; every repository; transactions under concurrent
      // load; the PostgreSQL pool's faults: each takes from several seconds to a minute.
      'test/storage/upgrade.test.ts',
      'test/storage/store.test.ts',
      'test/storage/transaction.test.ts',
      'test/storage/postgres-pool.test.ts',
    ],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites start real servers and databases; two workers fit this 2-core machine.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Browser and process suites on a loaded 2-core machine: a minute a test before it counts as hung.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a condition (a debounced search, a page that reloads): 1 s by default, which a
    // busy CI machine overruns; the condition itself is unchanged.
    expect: { poll: { timeout: 15_000 } },
    reporters: ['default'],
  },
});

/**
 * What `campus-sso serve` leaves unloaded when nothing needs it (docs/architecture.md): the PostgreSQL driver
 * on SQLite (src/storage/open-postgres.ts) and the LDAP client without LDAP_URL (src/domain/ldap-library.ts).
 * Each would otherwise sit in the heap of every such server for its whole life. Every module the server
 * resolves is recorded by a module resolution hook the child process registers first.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, serveOnAnyPort } from './cli-process.js';

/**
 * A `--import` file, written into `dir`, that records the URL of every module the process resolves, one a
 * line, in `record`.
 */
function recordingResolutions(dir: string, record: string): string {
  const hooks = join(dir, 'record-hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(record)}, resolved.url + '\\n');
  return resolved;
}
`,
  );
  const register = join(dir, 'register-hooks.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return register;
}

describe('serve on SQLite without a directory', () => {
  it('loads neither the PostgreSQL driver nor the LDAP client', async () => {
    await ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'campus-sso-lazy-modules-'));
    const record = join(dir, 'resolved.txt');
    writeFileSync(record, '');
    const { serve } = await serveOnAnyPort({
      DATABASE_URL: `sqlite:${join(dir, 'sso.sqlite')}`,
      NODE_OPTIONS: `--import ${recordingResolutions(dir, record)}`,
    }).catch((error: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    });
    try {
      const resolved = readFileSync(record, 'utf8');
      // The record is complete: the modules every start needs are in it.
      expect(resolved).toMatch(/\/node_modules\/kysely\//);
      expect(resolved).toMatch(/\/dist\/src\/storage\/open-store\.js/);
      expect(resolved).not.toMatch(/\/node_modules\/pg\//);
      expect(resolved).not.toMatch(/\/node_modules\/ldapts\//);
    } finally {
      const code = await serve.stop();
      rmSync(dir, { recursive: true, force: true });
      expect(code).toBe(0);
    }
  }, 180_000);
});

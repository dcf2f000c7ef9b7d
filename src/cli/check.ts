import { existsSync } from 'node:fs';
import { type AppContext, createAppContext } from '../app-context.js';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { missingSecretKeyFile } from '../domain/secret-box.js';
import { unreadableSigningKeys } from '../oauth/signing-keys.js';
import { integrityProblems } from '../ops/sqlite-maintenance.js';
import { openStore } from '../storage/open-store.js';
import type { Output } from './usage.js';

/** One check's verdict: one line of the command's output. */
interface Verdict {
  readonly ok: boolean;
  readonly check: string;
  readonly detail: string;
}

const MAX_LISTED = 5;

function listed(items: readonly (string | number)[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

/**
 * `campus-sso check` (docs/operations.md#checking-an-installation): the database is whole (SQLite
 * `integrity_check`) or reachable (PostgreSQL), its migrations are current, and the key-encryption key opens
 * every signing key and TOTP secret. One line per check; answers whether all passed. Changes nothing: no
 * migration is applied and no key file is created.
 */
export async function checkCommand(config: Config, out: Output): Promise<boolean> {
  const verdicts: Verdict[] = [];
  const report = (verdict: Verdict): void => {
    verdicts.push(verdict);
    out(`${verdict.ok ? 'ok  ' : 'FAIL'} ${verdict.check}: ${verdict.detail}`);
  };

  if (config.database.kind === 'sqlite' && !checkSqliteFile(config.database.file, report)) return false;

  const store = await openStore(config.database);
  try {
    const ctx = createAppContext(config, store, systemClock);
    let pending: string[];
    try {
      pending = await store.pendingMigrations();
      if (config.database.kind === 'postgres') {
        report({ ok: true, check: 'database', detail: 'PostgreSQL answers' });
      }
    } catch (error) {
      report({ ok: false, check: 'database', detail: `not reachable: ${(error as Error).message}` });
      return false;
    }
    report(
      pending.length === 0
        ? { ok: true, check: 'migrations', detail: 'current' }
        : {
            ok: false,
            check: 'migrations',
            detail: `not applied: ${listed(pending)} (run campus-sso migrate)`,
          },
    );

    const missing = missingSecretKeyFile(config.secretKey);
    if (missing !== undefined) {
      report({ ok: false, check: 'keys', detail: `the key file ${missing} was not found` });
    } else if (pending.length > 0) {
      report({ ok: false, check: 'keys', detail: 'not checked until the migrations are applied' });
    } else {
      await checkKeys(ctx, report);
    }
  } finally {
    await store.close();
  }
  return verdicts.every((verdict) => verdict.ok);
}

/** The database file exists and SQLite's `integrity_check` finds it whole; answers whether both hold. */
function checkSqliteFile(file: string, report: (verdict: Verdict) => void): boolean {
  if (!existsSync(file)) {
    report({ ok: false, check: 'database', detail: `there is no database at ${file}` });
    return false;
  }
  const problems = integrityProblems(file, 'integrity_check');
  report(
    problems.length === 0
      ? { ok: true, check: 'database', detail: `integrity_check ok (${file})` }
      : { ok: false, check: 'database', detail: `integrity_check: ${listed(problems)}` },
  );
  return problems.length === 0;
}

/** The key-encryption key opens every signing key and every TOTP secret. */
async function checkKeys(ctx: AppContext, report: (verdict: Verdict) => void): Promise<void> {
  try {
    const keys = await unreadableSigningKeys(ctx);
    report(
      keys.length === 0
        ? { ok: true, check: 'signing keys', detail: 'every key opens with the key-encryption key' }
        : {
            ok: false,
            check: 'signing keys',
            detail: `the key-encryption key opens none of ${listed(keys)}`,
          },
    );
    const secrets = await ctx.totp.unreadableSecrets();
    report(
      secrets.length === 0
        ? { ok: true, check: 'TOTP secrets', detail: 'every secret opens with the key-encryption key' }
        : {
            ok: false,
            check: 'TOTP secrets',
            detail: `the key-encryption key opens not those of uins ${listed(secrets)}`,
          },
    );
  } catch (error) {
    report({ ok: false, check: 'keys', detail: (error as Error).message });
  }
}

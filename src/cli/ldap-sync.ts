/**
 * `campus-sso ldap sync [--apply]` (docs/interface.md#command-line, docs/operations.md#what-the-sync-does):
 * one JSON line per change (`{"action":"create|update|disable","uin",…}`) and a summary line on standard
 * output, what was left alone (and why) as JSON lines on standard error; with `--apply` the changes are made.
 * A sync that cannot read the whole directory, or that runs while another does, changes nothing and exits 1.
 */
import type { Config } from '../config/config.js';
import { syncDirectory } from '../domain/directory-sync.js';
import { type Output, UsageError, parseOptions } from './usage.js';
import { withContext } from './with-store.js';

export async function ldapSyncCommand(
  config: Config,
  args: string[],
  out: Output,
  err: Output = (line) => void process.stderr.write(`${line}\n`),
): Promise<void> {
  const values = parseOptions(args, { apply: { type: 'boolean' } });
  const apply = values.apply === true;
  if (config.ldap === undefined)
    throw new UsageError(
      'ldap sync needs the directory settings: set LDAP_URL and the other LDAP_ variables',
    );
  await withContext(config, async (ctx) => {
    const directory = ctx.passwords.directory;
    if (directory === undefined) throw new UsageError('ldap sync needs LDAP_URL');
    const report = await syncDirectory({ ...ctx, directory }, apply);
    for (const warning of report.warnings) err(JSON.stringify(warning));
    for (const change of report.changes) out(JSON.stringify(change));
    out(JSON.stringify(report.summary));
  });
}

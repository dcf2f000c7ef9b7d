import { existsSync, statSync } from 'node:fs';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { importCampux, importCampuxMongoExport } from '../domain/campux-import.js';
import { type Output, UsageError, parseOptions } from './usage.js';
import { withStore } from './with-store.js';

/**
 * `campus-sso import-campux --sqlite FILE` or `--mongo-export DIR` (the files `mongoexport` wrote for the
 * collections `account`, `oauth_app` and `ban_list`), with `--keep-redirect-uri URI` for each Campux-era
 * redirect URI to keep although the rules refuse it: prints the import report as JSON.
 */
export async function importCampuxCommand(config: Config, args: string[], out: Output): Promise<void> {
  const values = parseOptions(args, {
    sqlite: { type: 'string' },
    'mongo-export': { type: 'string' },
    // docs/operations.md#moving-from-campux: a Campux-era redirect URI the school still needs, kept as it was.
    'keep-redirect-uri': { type: 'string', multiple: true },
  });
  const options = { keepRedirectUris: values['keep-redirect-uri'] ?? [] };
  const file = values.sqlite;
  const dir = values['mongo-export'];
  if ((file === undefined) === (dir === undefined)) {
    throw new UsageError('give either --sqlite FILE or --mongo-export DIR');
  }
  if (file !== undefined && !existsSync(file)) throw new UsageError(`no such file: ${file}`);
  if (dir !== undefined && !(existsSync(dir) && statSync(dir).isDirectory())) {
    throw new UsageError(`no such directory: ${dir}`);
  }
  await withStore(config, async (store) => {
    const report =
      file !== undefined
        ? await importCampux(store, systemClock, file, options)
        : await importCampuxMongoExport(store, systemClock, dir as string, options);
    out(JSON.stringify(report, null, 2));
  });
}

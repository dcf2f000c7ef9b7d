import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.js';
import type { Config } from '../config/config.js';
import { importCampux } from '../domain/campux-import.js';
import { openStore } from '../storage/open-store.js';
import { UsageError } from './usage.js';

/** `campus-sso import-campux --sqlite FILE`: prints the import report as JSON. */
export async function importCampuxCommand(
  config: Config,
  args: string[],
  out: (line: string) => void,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { sqlite: { type: 'string' } },
    strict: true,
    allowPositionals: false,
  });
  if (!values.sqlite) throw new UsageError('--sqlite FILE is required');
  if (!existsSync(values.sqlite)) throw new UsageError(`no such file: ${values.sqlite}`);
  const store = openStore(config.database);
  try {
    await store.migrate();
    const report = await importCampux(store, systemClock, values.sqlite);
    out(JSON.stringify(report, null, 2));
  } finally {
    await store.close();
  }
}

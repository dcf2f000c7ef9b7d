#!/usr/bin/env -S node --max-semi-space-size=4
/** The `campus-sso` command (docs/interface.md#command-line). */
import { ConfigError, loadConfig } from './config/config.js';
import { USAGE, UsageError } from './cli/usage.js';

/** Loaded on use: each command loads only what it needs. */
const commands = () => import('./cli/commands.js');

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  // The entry point hands the environment to the one module that reads it.
  // eslint-disable-next-line no-restricted-properties
  const env = process.env;
  const config = loadConfig(env);
  switch (command) {
    case 'serve':
      if (sub !== undefined) throw new UsageError(`serve takes no arguments, got "${sub}"`);
      await (await commands()).serve(config);
      return -1; // keeps running
    case 'migrate':
      if (sub !== undefined) throw new UsageError(`migrate takes no arguments, got "${sub}"`);
      await (await commands()).migrate(config, out);
      return 0;
    case 'user':
      if (sub === 'roles') await (await import('./cli/user-roles.js')).userRoles(config, rest, out);
      else if (sub === 'add') await (await commands()).userAdd(config, rest, out);
      else throw new UsageError(`unknown command "user ${sub ?? ''}"`.trim());
      return 0;
    case 'users': {
      if (sub !== 'disable-dormant') throw new UsageError(`unknown command "users ${sub ?? ''}"`.trim());
      const { disableDormantCommand } = await import('./cli/disable-dormant.js');
      await disableDormantCommand(config, rest, out);
      return 0;
    }
    case 'ldap': {
      if (sub !== 'sync') throw new UsageError(`unknown command "ldap ${sub ?? ''}"`.trim());
      const { ldapSyncCommand } = await import('./cli/ldap-sync.js');
      await ldapSyncCommand(config, rest, out);
      return 0;
    }
    case 'app':
      if (sub === 'list') {
        await (await commands()).appList(config, rest, out);
        return 0;
      }
      if (sub !== 'add') throw new UsageError(`unknown command "app ${sub ?? ''}"`.trim());
      await (await commands()).appAdd(config, rest, out);
      return 0;
    case 'backup':
    case 'restore': {
      const { backupCommand, restoreCommand } = await import('./cli/backup-restore.js');
      const args = [sub, ...rest].filter((a): a is string => a !== undefined);
      await (command === 'backup' ? backupCommand : restoreCommand)(config, args, out);
      return 0;
    }
    case 'keys':
      await (await commands()).keys(config, sub, rest, out);
      return 0;
    case 'check': {
      if (sub !== undefined) throw new UsageError(`check takes no arguments, got "${sub}"`);
      const { checkCommand } = await import('./cli/check.js');
      return (await checkCommand(config, out)) ? 0 : 1;
    }
    case 'import-campux': {
      const { importCampuxCommand } = await import('./cli/import-campux.js');
      await importCampuxCommand(
        config,
        [sub, ...rest].filter((a): a is string => a !== undefined),
        out,
      );
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`campus-sso: ${(error as Error).message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`campus-sso: configuration: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`campus-sso: ${(error as Error).message ?? String(error)}\n`);
      process.exitCode = 1;
    }
  },
);

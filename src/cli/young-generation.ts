/**
 * The server's young generation (docs/operations.md#requirements). V8 sizes it when the process starts, so
 * `v8.setFlagsFromString('--max-semi-space-size=…')` at run time changes nothing (measured: new space stays
 * 32 MiB); a `serve` started without the flag — `node dist/src/cli.js serve`, a container's
 * `node …` command — runs itself again in a child process that has it, and stays in front of it: it forwards
 * the stop signals and exits with the child's status.
 *
 * Why 4 MiB: the server's garbage is per-request and short-lived; with the default 16 MiB semi-spaces a
 * user-information request cost ~25% more CPU (83 against 65 µs on the 2-core bench VM) and peak RSS was
 * ~35 MB higher, at the same throughput.
 */
import { spawn } from 'node:child_process';

export const SEMI_SPACE_FLAG = '--max-semi-space-size=4';
/** Set in the relaunched child's environment: it has a parent in front of it (see `followParent`). */
export const RELAUNCHED_ENV = 'CAMPUS_SSO_RELAUNCHED';
const FLAG_NAME = /^--max[-_]semi[-_]space[-_]size(=|$)/;

/** Signals an operator or a supervisor (systemd, Docker, a terminal) sends to stop the server. */
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Whether this process was started with a young-generation size of its own choosing: on the command line
 * (`process.execArgv`, which the `campus-sso` shebang and `npm start` fill) or in NODE_OPTIONS.
 */
export function hasSemiSpaceFlag(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const words = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  return words.some((word) => FLAG_NAME.test(word));
}

/**
 * Runs this same command in a child Node process with SEMI_SPACE_FLAG and this process's environment `env`;
 * answers its exit status.
 */
export function relaunchWithSemiSpaceFlag(env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, [SEMI_SPACE_FLAG, ...process.execArgv, ...process.argv.slice(1)], {
    // The IPC channel tells the child when this process is gone, however it went (followParent).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...env, [RELAUNCHED_ENV]: '1' },
  });
  const forward = (signal: NodeJS.Signals) => (): void => void child.kill(signal);
  const handlers = FORWARDED.map((signal) => {
    const handler = forward(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      // A child killed by a signal: the shell's convention, 128 + the signal's number.
      resolve(code ?? 128 + (signal === null ? 0 : signalNumber(signal)));
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 1;
}

/**
 * In the relaunched child: when the parent dies without passing a signal on (SIGKILL, a crash), the child
 * dies the same way at once, so nothing keeps serving that the operator believes stopped.
 */
export function followParent(): void {
  if (process.channel === undefined) return;
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  // The channel must not keep the process alive on its own (a 'disconnect' listener refs it).
  process.channel.unref();
}

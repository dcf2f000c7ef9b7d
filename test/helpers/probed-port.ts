/**
 * A port of 127.0.0.1 that was free a moment ago: listened on (port 0, the system's pick) and closed again.
 * Another process may take it before it is used, so this is only for a program that must be told its port
 * before it starts (a daemon's configuration, a BASE_URL that names the port), and whoever starts that program
 * starts it again on a new probe when it says the port is taken. A server in this process listens on port 0
 * itself instead, and a `campus-sso serve` that needs no BASE_URL of its own starts on PORT=0.
 */
import { createServer } from 'node:net';

export async function probedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('the probe got no port');
  return address.port;
}

/** How many probed ports a start may try before it gives up. */
const START_TRIES = 5;

/** What a start answers when the port it was given had been taken meanwhile, with what the program said. */
export class PortTaken {
  constructor(readonly said: string) {}
}

/**
 * Runs `start` on a probed port until it answers anything but PortTaken, at most START_TRIES times (`start`
 * throws for any other failure); when every port was taken, fails with what the program said the last time.
 */
export async function startOnProbedPort<T>(
  what: string,
  start: (port: number) => Promise<T | PortTaken>,
): Promise<T> {
  let last = '';
  for (let attempt = 1; attempt <= START_TRIES; attempt++) {
    const started = await start(await probedPort());
    if (!(started instanceof PortTaken)) return started;
    last = started.said;
  }
  throw new Error(
    `${what}: the port was taken on each of ${START_TRIES} tries; the last time it said:\n${last}`,
  );
}

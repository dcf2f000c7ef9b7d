import type { FastifyInstance } from 'fastify';
import { DatabaseNotReady } from '../storage/database-errors.js';

/**
 * An instance started while its database is unreachable listens anyway and waits for it
 * (docs/operations.md#starting-during-an-outage). Until the database has answered and been migrated, the
 * gate is shut: `/healthz` and `/metrics` answer as usual (the process is alive), `/readyz` answers 503, and
 * every other request 503 with `Retry-After`, in its endpoint's convention, as during any outage.
 */
export class StartupGate {
  private shut = true;
  private readonly opened: Promise<void>;
  private resolveOpened: () => void = () => undefined;

  constructor() {
    this.opened = new Promise((resolve) => (this.resolveOpened = resolve));
  }

  get isOpen(): boolean {
    return !this.shut;
  }

  /** The database answered and is migrated: serve. */
  open(): void {
    this.shut = false;
    this.resolveOpened();
  }

  /** Resolves once the gate opens (never, when the instance stops first). */
  whenOpen(): Promise<void> {
    return this.opened;
  }
}

/** The gate's hook: a callback hook, one boolean once open. */
export function registerStartupGate(app: FastifyInstance, gate: StartupGate, database: string): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (gate.isOpen) {
      done();
      return;
    }
    const route = request.routeOptions.url;
    if (route === '/healthz' || route === '/metrics') {
      done();
      return;
    }
    if (route === '/readyz') {
      void reply.code(503).send({ status: 'starting', database });
      return;
    }
    done(new DatabaseNotReady());
  });
}

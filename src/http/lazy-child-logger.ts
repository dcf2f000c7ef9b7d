import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = FastifyBaseLogger['level'];

const METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The logger Fastify gives each request (`request.log`), made only when something logs through it. Fastify
 * makes a pino child per request (bindings serialized, an object built) although a request that goes well
 * logs only its access line, which ./plugins/access-log.ts writes through the server's logger with the
 * same `reqId` field. A line logged here is the child's own, byte for byte.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  declare fatal: FastifyBaseLogger['fatal'];
  declare error: FastifyBaseLogger['error'];
  declare warn: FastifyBaseLogger['warn'];
  declare info: FastifyBaseLogger['info'];
  declare debug: FastifyBaseLogger['debug'];
  declare trace: FastifyBaseLogger['trace'];
  declare silent: FastifyBaseLogger['silent'];
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  /** The pino child, made on first use. */
  get logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): Level {
    return this.logger.level;
  }

  set level(level: Level) {
    this.logger.level = level;
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

for (const method of METHODS) {
  Object.defineProperty(LazyChildLogger.prototype, method, {
    value: function (this: LazyChildLogger, ...args: unknown[]): void {
      const logger = this.logger;
      (logger[method] as (...line: unknown[]) => void).apply(logger, args);
    },
    writable: true,
    configurable: true,
  });
}

/** Fastify's `childLoggerFactory`: a request's logger, lazily. */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}

/**
 * A request's logger is made on first use (src/http/lazy-child-logger.ts) and writes exactly what Fastify's
 * own per-request pino child writes; the access line, written through the server's logger with `reqId`
 * among its fields, is that child's line byte for byte (docs/operations.md#logs).
 */
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { LazyChildLogger } from '../../src/http/lazy-child-logger.js';

function logger(): { root: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const root = pino(
    { level: 'info', redact: ['req.headers.authorization'], timestamp: () => ',"time":1' },
    { write: (line: string) => lines.push(line) },
  );
  return { root, lines };
}

describe('LazyChildLogger', () => {
  it('makes no pino child until something logs through it', () => {
    const { root } = logger();
    const child = vi.spyOn(root, 'child');
    const lazy = new LazyChildLogger(root, { reqId: 'req-1' }, {});
    expect(child).not.toHaveBeenCalled();
    lazy.info('first');
    lazy.warn('second');
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('writes what the pino child writes, at every level it logs', () => {
    const { root, lines } = logger();
    const lazy = new LazyChildLogger(root, { reqId: 'req-7' }, {});
    const child = root.child({ reqId: 'req-7' }, {});
    const error = new Error('boom');
    lazy.error({ err: error }, 'request failed');
    child.error({ err: error }, 'request failed');
    lazy.info('%s and %d', 'text', 2);
    child.info('%s and %d', 'text', 2);
    lazy.debug('below the level');
    child.debug('below the level');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(lines[1]);
    expect(lines[2]).toBe(lines[3]);
    expect(lazy.level).toBe('info');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ reqId: 'req-7', msg: 'request failed' });
  });

  it('gives the access line the same bytes through the server logger with reqId first', () => {
    const { root, lines } = logger();
    const fields = { method: 'GET', path: '/healthz', route: '/healthz', status: 200, ms: 0.4, ip: '::1' };
    root.child({ reqId: 'req-3' }, {}).info(fields, 'request');
    root.info({ reqId: 'req-3', ...fields }, 'request');
    root.child({ reqId: 'req-4' }, {}).info({ ...fields, route: undefined }, 'request');
    root.info({ reqId: 'req-4', ...fields, route: undefined }, 'request');
    expect(lines[1]).toBe(lines[0]);
    expect(lines[3]).toBe(lines[2]);
  });
});

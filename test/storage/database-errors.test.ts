/**
 * docs/operations.md#when-the-database-is-unavailable: which errors are an outage (503, retried later) and
 * which PostgreSQL connections are closed instead of reused.
 */
import { describe, expect, it } from 'vitest';
import {
  DatabaseTimeout,
  isDatabaseUnavailable,
  mustDiscardConnection,
} from '../../src/storage/database-errors.js';

const coded = (code: string, message = 'failed'): Error => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a connection that broke', new Error('Connection terminated unexpectedly')],
    ['a query that timed out', new Error('Query read timeout')],
    ['a pool with no free connection in time', new Error('timeout exceeded when trying to connect')],
    [
      'a connection that timed out while opening',
      new Error('Connection terminated due to connection timeout', { cause: new Error('x') }),
    ],
    ['a refused connection', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', coded('ECONNRESET', 'read ECONNRESET')],
    ['a refused connection on every address', new AggregateError([coded('ECONNREFUSED')], 'all failed')],
    ['PostgreSQL shutting down (57P01)', coded('57P01')],
    ['PostgreSQL starting up (57P03)', coded('57P03')],
    ['PostgreSQL out of connections (53300)', coded('53300')],
    ['PostgreSQL out of disk (53100)', coded('53100')],
    ['a connection exception (08006)', coded('08006')],
    ['a statement timeout (57014)', coded('57014')],
    ['a read-only standby after a failover (25006)', coded('25006')],
    ['SQLite busy after busy_timeout', coded('SQLITE_BUSY')],
    ['SQLite out of disk', coded('SQLITE_FULL')],
    ['SQLite failing to write', coded('SQLITE_IOERR_WRITE')],
    ['the readiness probe giving up', new DatabaseTimeout('the readiness probe', 2000)],
  ])('counts %s as an outage', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation (23505)', coded('23505')],
    ['a syntax error (42601)', coded('42601')],
    ['a SQLite constraint', coded('SQLITE_CONSTRAINT_UNIQUE')],
    ['a corrupt SQLite file', coded('SQLITE_CORRUPT')],
    ['a bug', new TypeError('undefined is not a function')],
    ['a value that is not an error', 'oops'],
  ])('counts %s as a bug, not an outage', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('mustDiscardConnection', () => {
  it('closes a connection that broke, timed out, or whose server is going away', () => {
    expect(mustDiscardConnection(new Error('Query read timeout'))).toBe(true);
    expect(mustDiscardConnection(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(mustDiscardConnection(coded('57P01'))).toBe(true);
    expect(mustDiscardConnection(coded('08006'))).toBe(true);
  });

  it("keeps a connection after a statement's own error, a cancelled statement included", () => {
    expect(mustDiscardConnection(coded('23505'))).toBe(false);
    expect(mustDiscardConnection(coded('57014'))).toBe(false);
  });
});

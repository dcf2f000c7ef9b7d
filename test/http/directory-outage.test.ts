/**
 * A directory outage in the log (docs/operations.md#when-the-directory-is-unavailable): one line when it
 * begins, counts while it lasts, one line when the directory answers again; nothing when it is healthy.
 */
import { describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { DirectoryUnavailable } from '../../src/domain/directory.js';
import { DirectoryOutage } from '../../src/http/directory-outage.js';

function recordingLog(): { log: FastifyBaseLogger; lines: { level: string; msg: string; object: object }[] } {
  const lines: { level: string; msg: string; object: object }[] = [];
  const at =
    (level: string) =>
    (object: object, msg: string): void =>
      void lines.push({ level, msg, object });
  const log = { error: at('error'), warn: at('warn'), info: at('info') } as unknown as FastifyBaseLogger;
  return { log, lines };
}

describe('DirectoryOutage', () => {
  it('logs an outage once, however many sign-ins it refuses, then once when it is over with the count', () => {
    const { log, lines } = recordingLog();
    const outage = new DirectoryOutage(log, 'ldap://ldap.school.test');
    try {
      outage.listener(undefined);
      expect(lines).toEqual([]);
      for (let i = 0; i < 25; i++) outage.listener(new DirectoryUnavailable('connect ECONNREFUSED'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'error' });
      expect(lines[0]?.msg).toMatch(
        /school directory unavailable \(ldap:\/\/ldap\.school\.test\): connect ECONNREFUSED/,
      );
      outage.listener(undefined);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatchObject({ level: 'info', object: { refused: 25 } });
      outage.listener(undefined);
      expect(lines).toHaveLength(2);
    } finally {
      outage.close();
    }
  });
});

/**
 * `POST /v1/admin/users/import` (docs/interface.md#admin-api): one chunk of the management page's CSV import.
 */
import { expect, it } from 'vitest';
import { json } from '../helpers/http.js';
import { describeOnDatabases } from '../helpers/fixture.js';

interface Envelope<T = Record<string, unknown>> {
  code: number;
  msg: string;
  data: T;
}

interface ImportResult {
  line: number;
  uin: number | string | null;
  status: 'created' | 'exists' | 'error';
  error?: string;
}

interface Row {
  line: number;
  uin?: unknown;
  password?: unknown;
  user_group?: unknown;
}

const PASSWORD = 'correct horse battery staple';
const IMPORT = '/v1/admin/users/import';

async function expectError(response: Response, status: number, code: number): Promise<string> {
  const body = await json<Envelope>(response);
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  return body.msg;
}

describeOnDatabases(
  'POST /v1/admin/users/import',
  { transport: 'inject', user: { group: 'admin', uin: 10_001 } },
  (fixture) => {
    const { server } = fixture;
    const admin = fixture.user.browser;

    async function importRows(rows: readonly Row[]): Promise<ImportResult[]> {
      const response = await admin.call('POST', IMPORT, { rows });
      expect(response.status).toBe(200);
      return (await json<Envelope<{ results: ImportResult[] }>>(response)).data.results;
    }

    it('creates good rows, reports taken uins as exists and bad rows as errors, in order', async () => {
      await server.ctx.users.create(40_002, PASSWORD, 'user');
      const results = await importRows([
        { line: 1, uin: '40001', password: 'password-one', user_group: 'member' },
        { line: 2, uin: '40002', password: 'would overwrite', user_group: 'admin' },
        { line: 3, uin: 'abc', password: 'password-three', user_group: 'user' },
        { line: 4, uin: '40004', password: 'short', user_group: 'user' },
        { line: 5, uin: '40005', password: 'password-five', user_group: 'root' },
        { line: 6, uin: 40_006, password: 'password-six', user_group: 'admin' },
        { line: 7, uin: '40007' },
        { line: 8, uin: '40001', password: 'password-again', user_group: 'user' },
        { line: 9, uin: '9007199254740993', password: 'password-nine', user_group: 'user' },
      ]);
      expect(results.map(({ line, uin, status }) => ({ line, uin, status }))).toEqual([
        { line: 1, uin: 40_001, status: 'created' },
        { line: 2, uin: 40_002, status: 'exists' },
        { line: 3, uin: 'abc', status: 'error' },
        { line: 4, uin: 40_004, status: 'error' },
        { line: 5, uin: 40_005, status: 'error' },
        { line: 6, uin: 40_006, status: 'created' },
        { line: 7, uin: 40_007, status: 'error' },
        { line: 8, uin: 40_001, status: 'error' },
        { line: 9, uin: '9007199254740993', status: 'error' },
      ]);
      const errors = results.map((result) => result.error);
      expect(errors[0]).toBeUndefined();
      expect(errors[1]).toBeUndefined();
      expect(errors[2]).toMatch(/uin/);
      expect(errors[3]).toMatch(/password must be at least 8 characters/);
      expect(errors[4]).toMatch(/user_group/);
      expect(errors[6]).toMatch(/user_group/);
      expect(errors[7]).toMatch(/line 1/);
      expect(errors[8]).toMatch(/uin/);

      expect(await server.ctx.users.authenticate(40_001, 'password-one')).toMatchObject({
        userGroup: 'member',
      });
      expect(await server.ctx.users.authenticate(40_006, 'password-six')).toMatchObject({
        userGroup: 'admin',
      });
      for (const uin of [40_004, 40_005, 40_007])
        expect(await server.ctx.store.users.find(uin)).toBeUndefined();
    });

    it('never overwrites an existing user', async () => {
      await server.ctx.users.create(41_001, PASSWORD, 'user');
      const [result] = await importRows([
        { line: 1, uin: '41001', password: 'new password here', user_group: 'admin' },
      ]);
      expect(result?.status).toBe('exists');
      expect(await server.ctx.users.authenticate(41_001, PASSWORD)).toMatchObject({ userGroup: 'user' });
    });

    it('accepts a uin as a digit string with surrounding spaces, and a group in any case', async () => {
      const [result] = await importRows([
        { line: 2, uin: ' 42001 ', password: PASSWORD, user_group: ' Member ' },
      ]);
      expect(result).toEqual({ line: 2, uin: 42_001, status: 'created' });
      expect((await server.ctx.store.users.find(42_001))?.userGroup).toBe('member');
    });

    it('refuses a uin that is not a positive whole number up to 2^53−1, as a string or a number', async () => {
      const bad: unknown[] = [
        '0',
        '-5',
        '1.5',
        '1e5',
        '0x10',
        '007',
        '',
        '9007199254740992',
        0,
        -1,
        2.5,
        2 ** 53,
        true,
        null,
      ];
      const results = await importRows(
        bad.map((uin, i) => ({ line: i + 1, uin, password: PASSWORD, user_group: 'user' })),
      );
      expect(results.map((result) => result.status)).toEqual(bad.map(() => 'error'));
      expect(results.every((result) => /uin/.test(result.error ?? ''))).toBe(true);
    });

    it('accepts the largest uin, 2^53−1, and answers it as a JSON integer', async () => {
      const response = await admin.call('POST', IMPORT, {
        rows: [{ line: 1, uin: String(Number.MAX_SAFE_INTEGER), password: PASSWORD, user_group: 'user' }],
      });
      expect(await response.text()).toContain(`"uin":${Number.MAX_SAFE_INTEGER},"status":"created"`);
    });

    it('takes the password exactly as written and refuses one that is not text', async () => {
      const results = await importRows([
        { line: 1, uin: '43001', password: '  spaced out  ', user_group: 'user' },
        { line: 2, uin: '43002', password: 12_345_678, user_group: 'user' },
      ]);
      expect(results.map((result) => result.status)).toEqual(['created', 'error']);
      expect(await server.ctx.users.authenticate(43_001, '  spaced out  ')).toBeDefined();
    });

    it('answers an empty chunk with no results', async () => {
      expect(await importRows([])).toEqual([]);
    });

    it('imports 1,000 users sent in 2 chunks of 500', async () => {
      const rows = Array.from({ length: 1000 }, (_, i) => ({
        line: i + 2,
        uin: String(5_000_000 + i),
        password: `password-${i}`,
        user_group: i % 10 === 0 ? 'member' : 'user',
      }));
      const first = await importRows(rows.slice(0, 500));
      const second = await importRows(rows.slice(500));
      const results = [...first, ...second];
      expect(results.map((result) => result.line)).toEqual(rows.map((row) => row.line));
      expect(results.every((result) => result.status === 'created')).toBe(true);

      const listed = await admin.call('GET', '/v1/admin/users?search=5000&limit=1');
      expect((await json<Envelope<{ total: number }>>(listed)).data.total).toBe(1000);
      expect(await server.ctx.users.authenticate(5_000_999, 'password-999')).toBeDefined();

      // Sending the file again creates nothing and reports every row as existing.
      const again = await importRows(rows.slice(0, 500));
      expect(again.every((result) => result.status === 'exists')).toBe(true);
    }, 120_000);

    it('accepts a chunk larger than the 64 KiB default body limit', async () => {
      const rows = Array.from({ length: 500 }, (_, i) => ({
        line: i + 1,
        uin: String(6_000_000 + i),
        password: 'p'.repeat(256),
        user_group: 'nobody',
      }));
      expect(JSON.stringify({ rows }).length).toBeGreaterThan(64 * 1024);
      const results = await importRows(rows);
      expect(results.every((result) => result.status === 'error')).toBe(true);
    });

    it('refuses more than 500 rows with 400 code 1', async () => {
      const rows = Array.from({ length: 501 }, (_, i) => ({ line: i + 1, uin: String(7_000_000 + i) }));
      expect(await expectError(await admin.call('POST', IMPORT, { rows }), 400, 1)).toMatch(/rows/);
    });

    it('refuses a body over 1 MB with 413 code 1', async () => {
      const rows = [{ line: 1, uin: '1', password: 'x'.repeat(1024 * 1024), user_group: 'user' }];
      await expectError(await admin.call('POST', IMPORT, { rows }), 413, 1);
    });

    it('refuses a malformed chunk — missing rows, unknown fields, rows that are not objects, no line — with 400 code 1', async () => {
      const bodies: unknown[] = [
        {},
        { rows: 'uin,password,user_group' },
        { rows: [], extra: true },
        { rows: [{ line: 1, uin: '1', password: PASSWORD, user_group: 'user', nickname: 'x' }] },
        { rows: [['1', PASSWORD, 'user']] },
        { rows: [{ uin: '1', password: PASSWORD, user_group: 'user' }] },
        { rows: [{ line: '1', uin: '1', password: PASSWORD, user_group: 'user' }] },
        { rows: [null] },
      ];
      for (const body of bodies) await expectError(await admin.call('POST', IMPORT, body), 400, 1);
    });

    it('refuses a body that is not valid UTF-8 with 400 code 1', async () => {
      const response = await server.fetch(IMPORT, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: server.baseUrl,
          cookie: admin.sessionCookie ?? '',
        },
        body: Buffer.concat([
          Buffer.from('{"rows":[{"line":1,"uin":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from('"}]}'),
        ]),
      });
      await expectError(response, 400, 1);
    });
  },
);

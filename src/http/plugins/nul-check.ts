/**
 * U+0000 is never a legitimate character in any field here (ids, secrets, codes, scopes, names, URIs), and
 * PostgreSQL cannot store or even compare it in text (SQLSTATE 22021), so a NUL would otherwise surface as a
 * 500. A NUL anywhere in the body, the query string or the path parameters is refused with 400 before the
 * route's schema and handler run, in the route's own error convention.
 */
import type { FastifyInstance } from 'fastify';
import { BadInputError } from '../bad-input.js';

const NUL = '\u0000';
const MAX_DEPTH = 32;

function containsNul(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => containsNul(item, depth + 1));
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL) || containsNul(item, depth + 1)) return true;
  }
  return false;
}

/** The first top-level field of `value` that holds a NUL ('' when `value` itself is a string with one). */
function fieldWithNul(value: unknown): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? '' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL) || containsNul(item, 1)) return key.replaceAll(NUL, '\\0');
  }
  return undefined;
}

export function registerNulCheck(app: FastifyInstance): void {
  // Callback style: it runs on every request, and an async hook costs a promise each time.
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [where, value] of [
      ['body', request.body],
      ['query', request.query],
      ['path', request.params],
    ] as const) {
      const field = fieldWithNul(value);
      if (field !== undefined) {
        done(
          new BadInputError(
            `${where}${field ? ` field ${field}` : ''} must not contain the character U+0000`,
          ),
        );
        return;
      }
    }
    done();
  });
}

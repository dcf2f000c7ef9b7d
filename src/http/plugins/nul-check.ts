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
  return fieldWithNul(value, depth) !== undefined;
}

/**
 * The first field of the object `value` whose name or value holds a NUL. A plain loop, not
 * `Object.entries`: this runs on every request, and most bodies are a few short strings.
 */
function fieldWithNul(value: object, depth = 0): string | undefined {
  const fields = value as Record<string, unknown>;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    if (key.includes(NUL) || containsNul(fields[key], depth + 1)) return key.replaceAll(NUL, '\\0');
  }
  return undefined;
}

/** Where a part of the request holds a NUL: '' for the part itself, a field name, or undefined if none. */
function nulIn(part: unknown): string | undefined {
  if (typeof part === 'string') return part.includes(NUL) ? '' : undefined;
  return part !== null && typeof part === 'object' ? fieldWithNul(part) : undefined;
}

/** The refusal for one part of the request, or undefined when it holds no NUL. */
function refusal(where: 'body' | 'query' | 'path', part: unknown): BadInputError | undefined {
  const field = nulIn(part);
  if (field === undefined) return undefined;
  return new BadInputError(`${where}${field ? ` field ${field}` : ''} must not contain the character U+0000`);
}

export function registerNulCheck(app: FastifyInstance): void {
  // Callback style: it runs on every request, and an async hook costs a promise each time.
  app.addHook('preValidation', (request, _reply, done) => {
    done(refusal('body', request.body) ?? refusal('query', request.query) ?? refusal('path', request.params));
  });
}

/**
 * Strict body parsers: bodies must be valid UTF-8 (a silent U+FFFD substitution would let a malformed
 * secret or code reach the handlers), and a form parameter sent twice stays an array so the route schema
 * rejects it (RFC 6749 §3.1: parameters must not be included more than once).
 */
import type { FastifyInstance } from 'fastify';
import { BadInputError } from '../bad-input.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new BadInputError('the request body is not valid UTF-8');
  }
}

/** A component with neither `%` nor `+` decodes to itself (most codes, ids, secrets and grant types). */
const ENCODED = /[%+]/;

function decodeFormComponent(component: string): string {
  if (!ENCODED.test(component)) return component;
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    throw new BadInputError('the form body has a malformed percent-encoding or invalid UTF-8');
  }
}

/** Parses application/x-www-form-urlencoded; repeated names become arrays. */
export function parseForm(text: string): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  if (text === '') return result;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeFormComponent(eq === -1 ? '' : pair.slice(eq + 1));
    const existing = result[name];
    if (existing === undefined) result[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[name] = [existing, value];
  }
  // Copy into a plain object so schema validation sees ordinary own properties.
  return { ...result };
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parseJson = (
    _request: unknown,
    body: Buffer,
    done: (error: Error | null, value?: unknown) => void,
  ): void => {
    let text: string;
    try {
      text = decodeUtf8(body);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    // No body at all is "no body" (clients often send the JSON content type on every call); a route that
    // needs one rejects the missing body through its schema.
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new BadInputError('the body is not valid JSON'), undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (_request, body: Buffer, done) => {
      try {
        done(null, parseForm(decodeUtf8(body)));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

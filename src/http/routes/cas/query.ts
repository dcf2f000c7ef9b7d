import { lenientQuery } from '../../schemas.js';

/**
 * A CAS endpoint's query (docs/interface.md#cas-protocol): any parameter, each a string or repeated strings.
 * Unknown parameters are ignored (CAS 3.0 §2); a repeated known one counts as absent, and the endpoint
 * answers in its own protocol (INVALID_REQUEST, the not-registered page), never with the JSON envelope.
 */
/** The query of a CAS endpoint whose parameters are `names` (documented), and any other (ignored). */
export const casQuery = lenientQuery;

type Query = Readonly<Record<string, string | readonly string[]>>;

/** The parameter's value when sent once; undefined when absent; null when repeated. */
export function single(query: Query, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

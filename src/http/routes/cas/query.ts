import { type TOptional, Type } from '@sinclair/typebox';

/**
 * A CAS endpoint's query (docs/interface.md#cas-protocol): any parameter, each a string or repeated strings.
 * Unknown parameters are ignored (CAS 3.0 §2); a repeated known one counts as absent, and the endpoint
 * answers in its own protocol (INVALID_REQUEST, the not-registered page), never with the JSON envelope.
 */
const Parameter = Type.Union([Type.String(), Type.Array(Type.String())]);

/** The query of a CAS endpoint whose parameters are `names` (documented), and any other (ignored). */
export function casQuery<const K extends string>(...names: readonly K[]) {
  const known = {} as Record<K, TOptional<typeof Parameter>>;
  for (const name of names) known[name] = Type.Optional(Parameter);
  return Type.Object(known, { additionalProperties: Parameter });
}

type Query = Readonly<Record<string, string | readonly string[]>>;

/** The parameter's value when sent once; undefined when absent; null when repeated. */
export function single(query: Query, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

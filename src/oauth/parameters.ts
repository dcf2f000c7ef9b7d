/**
 * RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted from the request."
 * Every optional OAuth parameter goes through `present` before a rule looks at it.
 */
export function present(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

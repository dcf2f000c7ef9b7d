/** `campus-sso keys rotate` and `keys list` (docs/interface.md#command-line). */
import type { AppContext } from '../app-context.js';
import { listSigningKeys, rotateSigningKeys, type SigningKeyState } from '../oauth/signing-keys.js';
import type { Output } from './usage.js';

function describe(state: SigningKeyState): Record<string, string | null> {
  return {
    kid: state.record.kid,
    alg: state.record.alg,
    created_at: new Date(state.record.createdAt).toISOString(),
    status: state.status,
    retires_at: state.retiresAt === null ? null : new Date(state.retiresAt).toISOString(),
  };
}

/** One JSON line per key, oldest first. */
export async function keysList(ctx: AppContext, out: Output): Promise<void> {
  for (const state of await listSigningKeys(ctx)) out(JSON.stringify(describe(state)));
}

/** Makes a new RS256 + ES256 pair active; prints every key afterwards, as `keys list` does. */
export async function keysRotate(ctx: AppContext, out: Output): Promise<void> {
  const created = await rotateSigningKeys(ctx);
  // docs/interface.md#audit-trail: an action on keys, by the operator (no actor).
  await ctx.audit.record({
    action: 'signing_keys_rotated',
    target: null,
    detail: { kids: created.map((record) => record.kid), via: 'cli' },
  });
  await keysList(ctx, out);
}

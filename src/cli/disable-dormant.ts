/**
 * `campus-sso users disable-dormant --days N [--apply]` (docs/interface.md#command-line,
 * docs/interface.md#people-groups-and-audit): lists the enabled accounts nobody has signed in to for N days
 * (an account never signed in to counts from its creation), one JSON line each and a summary line; with
 * `--apply` it disables them too, keeping at least one enabled admin.
 */
import type { Config } from '../config/config.js';
import { type Output, UsageError, parseOptions } from './usage.js';
import { withContext } from './with-store.js';

const DAY_MS = 24 * 3600 * 1000;
/** More than any school has; the listing is one query. */
const MAX_LISTED = 1_000_000;

export async function disableDormantCommand(config: Config, args: string[], out: Output): Promise<void> {
  const values = parseOptions(args, { days: { type: 'string' }, apply: { type: 'boolean' } });
  if (values.days === undefined || !/^[1-9][0-9]{0,4}$/.test(values.days)) {
    throw new UsageError('--days must be a whole number of days from 1 to 99999');
  }
  const days = Number(values.days);
  const apply = values.apply === true;

  await withContext(config, async (ctx) => {
    const now = ctx.clock.now();
    const dormant = await ctx.store.users.listDormant(now - days * DAY_MS, MAX_LISTED);
    let disabled = 0;
    for (const user of dormant) {
      const lastSeen = user.lastSignInAt ?? user.createdAt;
      let action: 'listed' | 'disabled' | 'kept_last_admin' = 'listed';
      if (apply) {
        // No session to keep: the command line is nobody's browser.
        const changed = await ctx.users.changeAsAdmin(user.uin, { disabled: true }, { uin: 0, idHash: '' });
        action = changed.outcome === 'changed' ? 'disabled' : 'kept_last_admin';
        if (action === 'disabled') disabled++;
      }
      out(
        JSON.stringify({
          uin: user.uin,
          user_group: user.userGroup,
          name: user.name,
          created_at: new Date(user.createdAt).toISOString(),
          last_sign_in_at: user.lastSignInAt === null ? null : new Date(user.lastSignInAt).toISOString(),
          idle_days: Math.floor((now - lastSeen) / DAY_MS),
          action,
        }),
      );
    }
    if (apply && dormant.length > 0) {
      await ctx.audit.record({
        action: 'users_disabled_dormant',
        target: `users:${disabled}`,
        detail: { days, disabled, uins: dormant.slice(0, 50).map((u) => u.uin) },
      });
    }
    out(JSON.stringify({ dormant: dormant.length, days, applied: apply, disabled }));
  });
}

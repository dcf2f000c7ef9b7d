import { Type } from '@sinclair/typebox';
import { launcherUrl } from '../../../domain/apps.js';
import { userMayUseApp } from '../../../oauth/authorization/authorize.js';
import type { AppRecord } from '../../../storage/store.js';
import type { LauncherAppView } from '../../../shared/pages.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import { requireSignedIn } from '../../session-cookie.js';
import { EnvelopeOf } from '../../response-schemas.js';
import { LauncherAppViewSchema } from '../../view-schemas.js';

const LauncherAnswers = { 200: EnvelopeOf({ apps: Type.Array(LauncherAppViewSchema) }) };

/**
 * `GET /v1/account/apps` (docs/interface.md#browser-session-api): the signed-in home page's app launcher —
 * the apps this user authorized and the apps an admin listed for everyone, enabled ones only, by name. An app
 * open only to some groups is left out for a user in none of them, as the authorization request would refuse
 * them (docs/interface.md#people-groups-and-audit).
 */
export const launcherRoutes: RoutePlugin = async (app, { ctx }) => {
  app.get('/v1/account/apps', { schema: { response: LauncherAnswers } }, async (request) => {
    const { user } = await requireSignedIn(ctx, request);
    const [consents, apps] = await Promise.all([
      ctx.consents.listForUser(user.uin),
      // A school has tens of apps, not thousands: one read of the table is simpler than another query.
      ctx.apps.list(),
    ]);
    const authorized = new Set(consents.map((consent) => consent.clientId));
    const tiles: LauncherAppView[] = [];
    for (const candidate of apps) {
      if (candidate.disabled || !(candidate.listed || authorized.has(candidate.clientId))) continue;
      if (!userMayUseApp(user, candidate)) continue;
      const url = launcherUrl(candidate);
      if (url !== undefined) tiles.push(tile(candidate, url));
    }
    tiles.sort((a, b) => a.name.localeCompare(b.name));
    return ok({ apps: tiles });
  });
};

function tile(app: AppRecord, url: string): LauncherAppView {
  return { client_id: app.clientId, name: app.name, emoji: app.emoji, homepage_url: url };
}

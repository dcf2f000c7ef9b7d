import { adminAppViews, findApp } from '../../../domain/admin-reads.js';
import { appTarget } from '../../../domain/audit.js';
import { badRequest, notFound } from '../../api-error.js';
import { ok } from '../../responses.js';
import type { RoutePlugin } from '../../route-plugin.js';
import {
  AppChangesBody,
  NewAppBody,
  appChangesFrom,
  checkRedirectUrisAfter,
  touchesRedirectRule,
  checkedBackchannelLogoutUri,
  checkedCasServices,
  checkedEmoji,
  checkedHomepageUrl,
  checkedName,
  checkedPostLogoutRedirectUris,
  checkedRedirectUris,
} from './app-fields.js';
import { auditAdminAction } from './audit-actor.js';
import { checkedGroups } from './people.js';
import { ClientIdParams } from './schemas.js';

const permission = { action: 'apps.manage', target: 'none' } as const;

/** `POST /v1/admin/apps`: registers an app; its secret is shown this once (docs/interface.md#resources). */
const createApp: RoutePlugin = async (app, { ctx }) => {
  app.post(
    '/v1/admin/apps',
    { schema: { body: NewAppBody }, config: { csrf: true, permission } },
    async (request) => {
      const body = request.body;
      const casServices = checkedCasServices(body.cas_services ?? []);
      const deviceGrant = body.device_grant ?? false;
      const created = await ctx.apps.create({
        name: checkedName(body.name),
        emoji: checkedEmoji(body.emoji),
        redirectUris: checkedRedirectUris(body.redirect_uris ?? [], casServices.length > 0 || deviceGrant),
        casServices,
        deviceGrant,
        clientCredentials: body.client_credentials ?? false,
        allowedScopes: body.allowed_scopes ?? [],
        allowedGroups: checkedGroups(body.allowed_groups ?? [], 'allowed_groups'),
        postLogoutRedirectUris: checkedPostLogoutRedirectUris(body.post_logout_redirect_uris ?? []),
        backchannelLogoutUri: checkedBackchannelLogoutUri(body.backchannel_logout_uri ?? null),
        listed: body.listed ?? false,
        homepageUrl: checkedHomepageUrl(body.homepage_url ?? null),
      });
      const { clientId, name } = created.app;
      await auditAdminAction(ctx, request, {
        action: 'app_created',
        target: appTarget(clientId),
        detail: { name },
      });
      // Only its hash is stored.
      const [view] = await adminAppViews(ctx, [created.app]);
      return ok({ app: view, client_secret: created.clientSecret });
    },
  );
};

/** `PATCH /v1/admin/apps/:client_id`: changes an app's settings. */
const changeApp: RoutePlugin = async (app, { ctx }) => {
  app.patch(
    '/v1/admin/apps/:client_id',
    { schema: { params: ClientIdParams, body: AppChangesBody }, config: { csrf: true, permission } },
    async (request) => {
      const { client_id: clientId } = request.params;
      const body = request.body;
      if (touchesRedirectRule(body)) {
        const current = await findApp(ctx, clientId);
        if (!current) throw notFound(`no app with client_id ${clientId}`);
        checkRedirectUrisAfter(current, body);
      }
      const changes = appChangesFrom(body);
      if (Object.keys(changes).length === 0) {
        throw badRequest(
          'send at least one of name, emoji, redirect_uris, disabled, allow_refresh_tokens, allowed_groups, ' +
            'post_logout_redirect_uris, backchannel_logout_uri, listed, homepage_url, cas_services, device_grant, ' +
            'client_credentials, allowed_scopes',
        );
      }
      if (!(await ctx.apps.change(clientId, changes))) throw notFound(`no app with client_id ${clientId}`);
      const detail = { fields: Object.keys(body).sort() };
      await auditAdminAction(ctx, request, { action: 'app_updated', target: appTarget(clientId), detail });
      const changed = await findApp(ctx, clientId);
      if (!changed) throw notFound(`no app with client_id ${clientId}`);
      const [view] = await adminAppViews(ctx, [changed]);
      return ok({ app: view });
    },
  );
};

/** Registering and changing apps (docs/interface.md#admin-api): admins only. */
export const adminAppWriteRoutes: RoutePlugin = async (app, options) => {
  await app.register(createApp, options);
  await app.register(changeApp, options);
};

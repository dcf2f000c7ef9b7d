import { Type } from '@sinclair/typebox';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { LOGO_PATH, LOGO_TYPES } from '../../config/branding.js';
import type { BrandingView } from '../../shared/pages.js';
import { ok } from '../responses.js';
import type { RoutePlugin } from '../route-plugin.js';
import { Content, Envelope } from '../response-schemas.js';
import { BrandingViewSchema } from '../view-schemas.js';
import { PUBLIC } from '../openapi/security.js';

/**
 * `GET /v1/branding` (docs/interface.md#browser-session-api): the school's name, logo, colour and helpdesk
 * from the configuration, public, for every page's header. With `BRAND_LOGO_FILE` the logo itself is served
 * at `GET /v1/branding/logo`, read once at start-up (a missing file stops the start).
 */
export const brandingRoutes: RoutePlugin = async (app, { ctx }) => {
  const { branding } = ctx.config;
  const view: BrandingView = {
    name: branding.name ?? null,
    name_zh: branding.nameZh ?? null,
    logo_url: branding.logoUrl ?? null,
    color: branding.color ?? null,
    helpdesk: branding.helpdesk ?? null,
  };
  app.get(
    '/v1/branding',
    { schema: { response: { 200: Envelope(BrandingViewSchema) }, security: PUBLIC } },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-cache');
      return ok(view);
    },
  );

  if (branding.logoFile === undefined) return;
  const logo = await readFile(branding.logoFile);
  const type = LOGO_TYPES[extname(branding.logoFile).toLowerCase()] ?? 'application/octet-stream';
  app.get(
    LOGO_PATH,
    {
      schema: {
        response: { 200: Content(type, Type.Unsafe<Buffer>({ type: 'string' }), 'The logo image') },
        security: PUBLIC,
      },
    },
    async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=3600').send(logo),
  );
};

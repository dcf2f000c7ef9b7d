import type { RoutePlugin } from '../../route-plugin.js';

/** The OAuth 2.0 / OpenID Connect endpoints (SPEC §2–6). */
export const oauth2Routes: RoutePlugin = async () => {};

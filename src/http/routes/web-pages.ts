import { existsSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { RoutePlugin } from '../route-plugin.js';
import { webRoot } from '../../paths.js';

/**
 * Serves the built pages (`dist/web`): `/` is the single-page app (hash routing: `#/auth`, `#/admin`,
 * `#/account`), assets are content-hashed and cached for a year, `index.html` is never cached.
 */
export const webPages: RoutePlugin = async (app) => {
  if (!existsSync(webRoot)) {
    app.log.warn({ webRoot }, 'web pages are not built; run `npm run build:web`');
    app.get('/', async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('campus-sso: the web pages are not built (npm run build:web)\n'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: webRoot,
    index: ['index.html'],
    wildcard: false,
    setHeaders(res, path) {
      if (path.endsWith('.html')) void res.header('cache-control', 'no-cache');
      else if (path.includes('/assets/'))
        void res.header('cache-control', 'public, max-age=31536000, immutable');
    },
  });
};

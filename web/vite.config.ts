import { fileURLToPath, URL } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

/**
 * The web pages: built into `dist/web`, which the server serves at `/` (index.html) and `/assets/…`.
 * Everything the pages load comes from that folder (scripts, styles, emoji data): the server's CSP allows
 * no other host and no inline script.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [
    vue({
      template: { compilerOptions: { isCustomElement: (tag) => tag === 'emoji-picker' } },
    }),
  ],
  define: {
    // Vue and vue-i18n feature flags (smaller bundle; vue-i18n 11 compiles messages "just in time"
    // to an AST and interprets it, so no `new Function` is needed under `script-src 'self'`).
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    __VUE_I18N_FULL_INSTALL__: 'false',
    __VUE_I18N_LEGACY_API__: 'false',
    __INTLIFY_PROD_DEVTOOLS__: 'false',
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // The polyfill would be bundled, not inlined, but every supported browser has module preload.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 700,
  },
  server: {
    // `npm run build:server && node dist/src/cli.js serve` in another terminal, then `vite --config web/vite.config.ts`.
    proxy: { '/v1': 'http://127.0.0.1:8080' },
  },
});

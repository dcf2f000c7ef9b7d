import { createRouter, createWebHashHistory, type RouteComponent, type RouteRecordRaw } from 'vue-router';
import { focusHeading } from './lib/focus';
import { setPageTitle } from './lib/page-title';
import AuthPage from './pages/AuthPage.vue';
import HomePage from './pages/HomePage.vue';

declare module 'vue-router' {
  interface RouteMeta {
    /** The locale key of the page's name in the tab title (lib/page-title.ts). */
    titleKey?: string;
  }
}

/** A page loaded when first visited (its own chunk, out of the sign-in page's bundle), at `/#/<name>`. */
function lazyPage(name: string, component: () => Promise<RouteComponent>, titleKey: string): RouteRecordRaw {
  return { path: `/${name}`, name, component, meta: { titleKey } };
}

/**
 * Hash routing: the server serves one index.html at `/`, and clients link to `/#/auth?…`
 * (docs/interface.md#authorization-page).
 */
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', name: 'home', component: HomePage, meta: { titleKey: 'titles.home' } },
    { path: '/auth', name: 'auth', component: AuthPage, meta: { titleKey: 'titles.signIn' } },
    // docs/interface.md#cas-protocol: where /cas/login sends a browser that must sign in first.
    lazyPage('cas', () => import('./pages/CasPage.vue'), 'titles.signIn'),
    lazyPage('account', () => import('./pages/AccountPage.vue'), 'titles.account'),
    lazyPage('admin', () => import('./pages/AdminPage.vue'), 'titles.admin'),
    lazyPage('reset', () => import('./pages/ResetPage.vue'), 'titles.reset'),
    lazyPage('logout', () => import('./pages/LogoutPage.vue'), 'titles.logout'),
    lazyPage('device', () => import('./pages/DevicePage.vue'), 'titles.device'),
    lazyPage('scan', () => import('./pages/ScanPage.vue'), 'titles.scan'),
    { path: '/:pathMatch(.*)*', redirect: '/' },
  ],
});

// A new page: its own title, and focus on its heading (not on the link that is gone); not on first load,
// where the browser starts at the top as usual.
router.afterEach((to, from, failure) => {
  if (failure) return;
  setPageTitle(undefined);
  if (from.matched.length > 0 && to.path !== from.path) void focusHeading();
});

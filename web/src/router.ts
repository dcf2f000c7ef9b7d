import { createRouter, createWebHashHistory } from 'vue-router';
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
    {
      path: '/cas',
      name: 'cas',
      component: () => import('./pages/CasPage.vue'),
      meta: { titleKey: 'titles.signIn' },
    },
    {
      path: '/account',
      name: 'account',
      component: () => import('./pages/AccountPage.vue'),
      meta: { titleKey: 'titles.account' },
    },
    {
      path: '/admin',
      name: 'admin',
      component: () => import('./pages/AdminPage.vue'),
      meta: { titleKey: 'titles.admin' },
    },
    {
      path: '/reset',
      name: 'reset',
      component: () => import('./pages/ResetPage.vue'),
      meta: { titleKey: 'titles.reset' },
    },
    {
      path: '/logout',
      name: 'logout',
      component: () => import('./pages/LogoutPage.vue'),
      meta: { titleKey: 'titles.logout' },
    },
    {
      path: '/device',
      name: 'device',
      component: () => import('./pages/DevicePage.vue'),
      meta: { titleKey: 'titles.device' },
    },
    {
      path: '/scan',
      name: 'scan',
      component: () => import('./pages/ScanPage.vue'),
      meta: { titleKey: 'titles.scan' },
    },
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

import { createRouter, createWebHashHistory } from 'vue-router';
import AuthPage from './pages/AuthPage.vue';
import HomePage from './pages/HomePage.vue';

/**
 * Hash routing: the server serves one index.html at `/`, and clients link to `/#/auth?…`
 * (docs/interface.md#authorization-page).
 */
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', name: 'home', component: HomePage },
    { path: '/auth', name: 'auth', component: AuthPage },
    { path: '/account', name: 'account', component: () => import('./pages/AccountPage.vue') },
    { path: '/admin', name: 'admin', component: () => import('./pages/AdminPage.vue') },
    { path: '/:pathMatch(.*)*', redirect: '/' },
  ],
});

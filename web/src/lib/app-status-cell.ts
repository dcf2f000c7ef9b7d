/**
 * The Apps table's Status cell (docs/interface.md#admin-api): active or disabled, refresh tokens on or off, how
 * logouts reach the app (back-channel logout, CAS single logout), and, for a service account, the scopes its
 * own tokens may carry.
 */
import { NTag } from 'naive-ui';
import { h, type VNode } from 'vue';
import type { AppView } from '../api';
import { formatDate } from '../i18n';
import { serviceView } from './app-service';

type Translate = (key: string, named?: Record<string, unknown>) => string;

function backchannelStatus(t: Translate, app: AppView): string {
  const last = app.backchannel_logout_last_attempt;
  const parts = [
    last
      ? t('appLogout.lastAttempt', {
          result: last.result === 'delivered' ? t('appLogout.delivered') : last.result,
          date: formatDate(last.at),
        })
      : t('appLogout.noDelivery'),
  ];
  if (app.backchannel_logout_pending)
    parts.push(t('appLogout.waiting', { n: app.backchannel_logout_pending }));
  return `${t('appLogout.delivery')}: ${parts.join(' · ')}`;
}

/** One line of the cell, beside the status tag. */
const line = (text: string, testId?: string): VNode =>
  h('span', { class: 'apps__refresh', ...(testId && { 'data-testid': testId }) }, text);

export function appStatusCell(t: Translate, app: AppView): VNode {
  const service = serviceView(app);
  return h('div', { class: 'table-stack apps__status' }, [
    h(
      NTag,
      { type: app.disabled ? 'error' : 'success', size: 'small', bordered: false },
      { default: () => (app.disabled ? t('common.disabled') : t('common.active')) },
    ),
    line(`${t('apps.refresh')}: ${app.allow_refresh_tokens ? t('apps.on') : t('apps.off')}`),
    // Both kinds of logout delivery: back-channel logout and CAS single logout.
    ...(app.backchannel_logout_uri || (app.cas_services ?? []).length > 0
      ? [line(backchannelStatus(t, app), 'logout-delivery')]
      : []),
    // docs/interface.md#service-accounts-client-credentials: what the app's own tokens may do.
    ...(service.client_credentials
      ? [
          line(
            t('appService.status', { scopes: (service.allowed_scopes ?? []).join(' ') }),
            'app-service-account',
          ),
        ]
      : []),
  ]);
}

/**
 * The Users table's columns (docs/interface.md#admin-api). At 1280 px the table scrolls sideways: the check
 * box and the UIN stay pinned on the left and the row's actions on the right (one menu button), so every
 * row stays identifiable and actionable. Below 640 px each row is a card (stacked-table.ts).
 */
import { NSelect, NTag, type DataTableColumns, type DataTableColumn } from 'naive-ui';
import { h } from 'vue';
import type { AdminUserView, UserGroup } from '../api';
import RowActionsMenu, { type RowAction } from '../components/RowActionsMenu.vue';
import RowButton from '../components/RowButton.vue';
import { formatDate } from '../i18n';
import type { AdminAbilities } from './admin-abilities';
import { labelledColumns } from './stacked-table';

type Translate = (key: string, named?: Record<string, unknown>) => string;

/** A row action's key, handled by the Users panel. */
export type UserAction = 'profile' | 'reset-code' | 'password' | 'disable' | 'factors' | 'sign-out';

export interface UserColumnsOptions {
  readonly t: Translate;
  readonly abilities: AdminAbilities;
  readonly groupOptions: readonly { value: UserGroup; label: string }[];
  readonly isSelected: (uin: number) => boolean;
  /** Whether the rows shown are all, some or none selected. */
  readonly pageSelection: 'all' | 'some' | 'none';
  readonly onSelect: (uin: number, on: boolean) => void;
  readonly onSelectPage: (on: boolean) => void;
  readonly onGroup: (user: AdminUserView, group: UserGroup) => void;
  readonly onUnlock: (user: AdminUserView) => void;
  readonly onAction: (user: AdminUserView, action: UserAction) => void;
}

export const isExpired = (user: AdminUserView): boolean =>
  user.expires_at !== null && Date.parse(user.expires_at) <= Date.now();

const tags = (names: readonly string[], attrs: Record<string, string> = {}, type?: 'info') =>
  h(
    'span',
    { class: 'users__tags', ...attrs },
    names.map((name) => h(NTag, { size: 'small', bordered: false, type }, { default: () => name })),
  );

/** The row's menu: what this person's role lets them do to the user. */
export function rowActions(t: Translate, abilities: AdminAbilities, user: AdminUserView): RowAction[] {
  const directory = user.source === 'ldap';
  const recover = abilities.recoverUsers && abilities.mayRecover(user);
  const directoryHint = directory ? t('account.directoryPassword') : undefined;
  const actions: (RowAction | false)[] = [
    abilities.manageUsers && { key: 'profile', label: t('people.editProfile') },
    recover && {
      key: 'reset-code',
      label: t('people.resetCode'),
      disabled: directory,
      hint: directoryHint,
    },
    recover && {
      key: 'password',
      label: t('users.resetPassword'),
      disabled: directory,
      hint: directoryHint,
    },
    recover && user.second_factors.length > 0 && { key: 'factors', label: t('userFactors.remove') },
    recover && { key: 'sign-out', label: t('userSignOut.action') },
    abilities.manageUsers && {
      key: 'disable',
      label: user.disabled ? t('common.enable') : t('common.disable'),
      danger: !user.disabled,
    },
  ];
  return actions.filter((action): action is RowAction => action !== false);
}

function selectColumn(o: UserColumnsOptions): DataTableColumn<AdminUserView> {
  return {
    key: 'select',
    width: 48,
    fixed: 'left',
    title: () =>
      h('input', {
        type: 'checkbox',
        class: 'users__check',
        checked: o.pageSelection === 'all',
        indeterminate: o.pageSelection === 'some',
        'aria-label': o.t('people.selectAll'),
        onChange: (event: Event) => o.onSelectPage((event.target as HTMLInputElement).checked),
      }),
    render: (user) =>
      h('input', {
        type: 'checkbox',
        class: 'users__check',
        checked: o.isSelected(user.uin),
        'aria-label': o.t('people.selectUser', { uin: user.uin }),
        'data-testid': `select-${user.uin}`,
        onChange: (event: Event) => o.onSelect(user.uin, (event.target as HTMLInputElement).checked),
      }),
  };
}

function statusCell(t: Translate, user: AdminUserView) {
  const expired = isExpired(user);
  return h('div', { class: 'table-stack users__status' }, [
    h(
      NTag,
      { size: 'small', bordered: false, type: user.disabled || expired ? 'error' : 'success' },
      {
        default: () =>
          user.disabled ? t('common.disabled') : expired ? t('people.expired') : t('common.active'),
      },
    ),
    user.expires_at && !expired
      ? h('span', { class: 'users__note' }, `${t('people.expiresAt')}: ${formatDate(user.expires_at)}`)
      : null,
    user.locked_until
      ? h('span', { class: 'users__note users__locked', 'data-testid': `locked-${user.uin}` }, [
          t('people.locked', { time: formatDate(user.locked_until) }),
        ])
      : null,
  ]);
}

function actionsCell(o: UserColumnsOptions, user: AdminUserView) {
  const items = rowActions(o.t, o.abilities, user);
  return h('div', { class: 'table-actions' }, [
    // A locked account is the one urgent case: its Unlock stays a button of its own.
    user.locked_until && o.abilities.recoverUsers && o.abilities.mayRecover(user)
      ? h(RowButton, {
          label: o.t('people.unlock'),
          subject: String(user.uin),
          size: 'small',
          type: 'warning',
          secondary: true,
          onClick: () => o.onUnlock(user),
        })
      : null,
    items.length > 0
      ? h(RowActionsMenu, {
          label: o.t('common.actions'),
          subject: String(user.uin),
          items,
          testId: `actions-${user.uin}`,
          onSelect: (key: string) => o.onAction(user, key as UserAction),
        })
      : null,
  ]);
}

export function userColumns(o: UserColumnsOptions): DataTableColumns<AdminUserView> {
  const { abilities } = o;
  const selectable = abilities.manageUsers || abilities.recoverUsers;
  const columns: (DataTableColumn<AdminUserView> | false)[] = [
    selectable && selectColumn(o),
    {
      key: 'uin',
      title: o.t('users.uin'),
      width: 130,
      // Pinned, so the row stays identifiable while the table scrolls sideways.
      fixed: 'left',
      render: (user) => h('span', { class: 'mono' }, String(user.uin)),
    },
    { key: 'name', title: o.t('people.name'), width: 150, render: (user) => user.name ?? '' },
    {
      key: 'user_group',
      title: o.t('users.group'),
      width: abilities.manageUsers ? 160 : 110,
      render: (user) =>
        abilities.manageUsers
          ? h(NSelect, {
              size: 'small',
              value: user.user_group,
              options: [...o.groupOptions],
              consistentMenuWidth: false,
              inputProps: { 'aria-label': o.t('users.changeGroup', { uin: user.uin }) },
              'aria-label': o.t('users.changeGroup', { uin: user.uin }),
              onUpdateValue: (value: UserGroup) => o.onGroup(user, value),
            })
          : o.t(`groups.${user.user_group}`),
    },
    {
      key: 'groups',
      title: o.t('people.groupTags'),
      width: 170,
      render: (user) => tags(user.groups),
    },
    {
      key: 'second_factors',
      title: o.t('userFactors.column'),
      width: 150,
      render: (user) =>
        user.second_factors.length === 0
          ? h('span', { class: 'users__note' }, o.t('userFactors.none'))
          : tags(
              user.second_factors.map((kind) => o.t(`userFactors.${kind}`)),
              { 'data-testid': `factors-${user.uin}` },
              'info',
            ),
    },
    { key: 'status', title: o.t('common.status'), width: 150, render: (user) => statusCell(o.t, user) },
    {
      key: 'last_sign_in_at',
      title: o.t('people.lastSignIn'),
      width: 160,
      render: (user) => (user.last_sign_in_at ? formatDate(user.last_sign_in_at) : o.t('people.never')),
    },
    {
      key: 'source',
      title: o.t('people.source'),
      width: 100,
      // docs/interface.md#the-schools-directory: local, or from the school's directory.
      render: (user) =>
        h(
          NTag,
          { size: 'small', bordered: false, type: user.source === 'ldap' ? 'info' : 'default' },
          { default: () => (user.source === 'ldap' ? o.t('people.sourceLdap') : o.t('people.sourceLocal')) },
        ),
    },
    {
      key: 'created_at',
      title: o.t('users.created'),
      width: 160,
      render: (user) => formatDate(user.created_at),
    },
    selectable && {
      key: 'actions',
      title: o.t('common.actions'),
      width: 150,
      // Pinned right: the actions of every row are in view without scrolling.
      fixed: 'right',
      render: (user) => actionsCell(o, user),
    },
  ];
  return labelledColumns<AdminUserView>(
    columns.filter((column): column is DataTableColumn<AdminUserView> => column !== false),
  );
}

/** The width the columns need side by side (the table scrolls sideways when the page is narrower). */
export function userColumnsWidth(columns: DataTableColumns<AdminUserView>): number {
  return columns.reduce((sum, column) => sum + (('width' in column && Number(column.width)) || 0), 0);
}

/**
 * What the Users table does to one person (docs/interface.md#admin-api and #people-groups-and-audit): change
 * their group (making someone an admin is confirmed), disable or enable them, unlock them, remove their
 * second factors, sign them out everywhere. Each confirms first where the act is hard to undo, and answers
 * with a toast; `replace` puts the changed row into the table.
 */
import { useI18n } from 'vue-i18n';
import { api, ApiError, EnvelopeCode, type AdminUserView, type UserGroup } from '../api';
import { message } from '../feedback';
import { useConfirm } from './confirm';
import { useDisableToggle } from './disable-toggle';
import { describeError } from './errors';

export function useUserRowActions(replace: (user: AdminUserView) => void) {
  const { t } = useI18n();

  function explain(error: unknown): string {
    return error instanceof ApiError && error.code === EnvelopeCode.Conflict
      ? t('users.lastAdmin')
      : describeError(t, error);
  }
  const confirmAct = useConfirm(explain);

  async function changeGroup(user: AdminUserView, userGroup: UserGroup): Promise<void> {
    try {
      replace((await api.updateUser(user.uin, { user_group: userGroup })).user);
      message.success(t('users.groupChanged', { uin: user.uin, group: t(`groups.${userGroup}`) }));
    } catch (error) {
      message.error(explain(error));
      replace({ ...user });
    }
  }

  /** Making someone an administrator gives them everything: it is confirmed first. */
  function requestGroup(user: AdminUserView, userGroup: UserGroup): void {
    if (userGroup !== 'admin') {
      void changeGroup(user, userGroup);
      return;
    }
    let confirmed = false;
    confirmAct({
      title: t('field.makeAdminTitle', { uin: user.uin }),
      content: t('field.makeAdminBody'),
      confirm: t('field.makeAdmin'),
      act: () => {
        confirmed = true;
        return changeGroup(user, userGroup);
      },
      // Cancelled: the select shows the group the user still has.
      onAfterLeave: () => {
        if (!confirmed) replace({ ...user });
      },
    });
  }

  const toggleDisabled = useDisableToggle<AdminUserView>({
    update: async (user, disabled) => (await api.updateUser(user.uin, { disabled })).user,
    replace,
    ask: (user) => ({ title: t('users.disableTitle', { uin: user.uin }), content: t('users.disableBody') }),
    done: (user, disabled) => t(disabled ? 'users.disabledMsg' : 'users.enabledMsg', { uin: user.uin }),
    explain,
  });

  /** For someone who lost their phone or passkey: every second factor goes, confirmed first (audited). */
  function removeSecondFactors(user: AdminUserView): void {
    confirmAct({
      title: t('userFactors.removeTitle', { uin: user.uin }),
      content: t('userFactors.removeBody'),
      confirm: t('userFactors.remove'),
      act: async () => {
        await api.removeSecondFactors(user.uin);
        replace({ ...user, second_factors: [] });
      },
      done: () => t('userFactors.removed', { uin: user.uin }),
    });
  }

  /** Ends every session of the user (docs/interface.md#sessions-and-sign-out). */
  function signOutEverywhere(user: AdminUserView): void {
    confirmAct({
      title: t('userSignOut.title', { uin: user.uin }),
      content: t('userSignOut.body', { uin: user.uin }),
      confirm: t('userSignOut.action'),
      act: () => api.signOutUser(user.uin),
      done: ({ sessions_ended }) => t('userSignOut.done', { uin: user.uin, n: sessions_ended }),
    });
  }

  async function unlock(user: AdminUserView): Promise<void> {
    try {
      await api.unlockUser(user.uin);
      replace({ ...user, locked_until: null });
      message.success(t('people.unlocked', { uin: user.uin }));
    } catch (error) {
      message.error(describeError(t, error));
    }
  }

  return { requestGroup, toggleDisabled, removeSecondFactors, signOutEverywhere, unlock };
}

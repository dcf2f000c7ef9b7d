/**
 * Why the last sign-in attempt failed, as a key so the message follows a change of language, with the lock's
 * countdown (docs/interface.md#browser-session-api): the server warns before the failure that locks the
 * account, and a lock is announced once, not every second of its countdown.
 */
import { computed, onBeforeUnmount, ref } from 'vue';
import type { ComposerTranslation } from 'vue-i18n';
import { ApiError, EnvelopeCode } from '../api';
import { announce } from './announcer';
import { describeError } from './errors';
import { isPasskeyCancelled } from './passkeys';

export type SignInFailure =
  | ''
  | 'throttled'
  | 'lockedNow'
  | 'wrong'
  | 'lastTry'
  | 'forbidden'
  | 'directory'
  | 'passkey'
  | 'passkeyCancelled'
  | 'other';

export function useSignInFailure(t: ComposerTranslation) {
  const failure = ref<SignInFailure>('');
  /** The lock the next wrong password starts, in seconds (the server's `data.next_failure_locks_for`). */
  const nextLockSeconds = ref(0);
  const otherFailure = ref('');
  const waitSeconds = ref(0);
  let countdown: ReturnType<typeof setInterval> | undefined;

  function startCountdown(seconds: number): void {
    waitSeconds.value = seconds;
    void announce(t('signInHelp.lockedAnnounce', { seconds }));
    clearInterval(countdown);
    countdown = setInterval(() => {
      waitSeconds.value -= 1;
      if (waitSeconds.value <= 0) {
        clearInterval(countdown);
        failure.value = '';
      }
    }, 1000);
  }
  onBeforeUnmount(() => clearInterval(countdown));

  const failureText = computed(() => {
    switch (failure.value) {
      case 'throttled':
        return t('login.throttled', { seconds: Math.max(waitSeconds.value, 1) });
      case 'lockedNow':
        return t('login.lockedNow', { seconds: Math.max(waitSeconds.value, 1) });
      case 'wrong':
        return t('login.wrongCredentials');
      case 'lastTry':
        return t('login.lastTry', { seconds: nextLockSeconds.value });
      case 'forbidden':
        return t('login.forbidden');
      case 'directory':
        return t('login.directoryUnavailable');
      case 'passkey':
        return t('login.passkeyFailed');
      case 'passkeyCancelled':
        return t('login.passkeyCancelled');
      default:
        return otherFailure.value;
    }
  });

  function other(error: unknown): void {
    failure.value = 'other';
    otherFailure.value = describeError(t, error);
  }

  /** A refused `POST /v1/account/login`. */
  function passwordFailed(error: unknown): void {
    if (!(error instanceof ApiError)) return other(error);
    if (error.code === EnvelopeCode.Throttled) {
      failure.value = 'throttled';
      startCountdown(error.retryAfter ?? 60);
    } else if (error.status === 401) {
      const { next_failure_locks_for: nextLock, locked_for: locked } = error.data;
      if (typeof locked === 'number' && locked > 0) {
        failure.value = 'lockedNow';
        startCountdown(locked);
      } else if (typeof nextLock === 'number' && nextLock > 0) {
        nextLockSeconds.value = nextLock;
        failure.value = 'lastTry';
      } else {
        failure.value = 'wrong';
      }
    } else if (error.code === EnvelopeCode.DirectoryUnavailable) {
      // docs/interface.md#the-schools-directory: only directory accounts are refused during an outage.
      failure.value = 'directory';
    } else if (error.code === EnvelopeCode.Forbidden) {
      failure.value = 'forbidden';
    } else {
      other(error);
    }
  }

  /** A passkey sign-in that did not succeed. */
  function passkeyFailed(error: unknown): void {
    if (isPasskeyCancelled(error)) failure.value = 'passkeyCancelled';
    else if (error instanceof ApiError && error.status === 401) failure.value = 'passkey';
    else other(error);
  }

  return { failure, failureText, waitSeconds, passwordFailed, passkeyFailed };
}

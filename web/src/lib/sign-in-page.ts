/**
 * What the sign-in pages (#/auth, #/cas) share around SignInSteps: the step (the shared ones and the page's
 * own), an unexpected failure shown with Retry, the sign-in form's tab name, "Not you?" and the question a
 * page's start asks first: is someone signed in who need not sign in again?
 */
import { onMounted, type Ref, ref } from 'vue';
import { useI18n } from 'vue-i18n';
import { ensureMe, signOut } from '../session';
import { describeError } from './errors';
import { setPageTitle } from './page-title';
import { useStepFocus } from './step-focus';

/** The steps SignInSteps shows itself; any other step is the page's own. */
export type SharedSignInStep = 'loading' | 'login' | 'password' | 'notAllowed' | 'redirecting' | 'failed';

/** What SignInSteps reads and calls. */
export interface SignInFrame {
  readonly step: Readonly<Ref<string>>;
  readonly failure: Readonly<Ref<string>>;
  /** Starts the page again (Retry after a failure). */
  readonly start: () => Promise<void>;
  /** The user signed out here: the sign-in form follows. */
  readonly signedOut: () => void;
  /** "Not you?": signs out, then the sign-in form. */
  readonly notMe: () => Promise<void>;
}

export interface SignInPage<Own extends string> extends SignInFrame {
  readonly step: Ref<SharedSignInStep | Own>;
  showFailure(error: unknown): void;
  /**
   * Whether someone is signed in who need not sign in again (`again`: the app asked for the password even
   * so); undefined when asking failed, which is shown.
   */
  signedInAlready(again: boolean): Promise<boolean | undefined>;
}

export function useSignInPage<Own extends string>(options: {
  /** Runs when the page mounts, and again on Retry. */
  start: () => Promise<void>;
  /** Names the tab for the page's own steps (the sign-in form is named here). */
  nameTab: (step: SharedSignInStep | Own) => void;
  /** Said besides the sign-in form following, when the user signed out here. */
  onSignedOut?: () => void;
}): SignInPage<Own> {
  const { t } = useI18n();
  const step = ref('loading') as Ref<SharedSignInStep | Own>;
  const failure = ref('');

  function showFailure(error: unknown): void {
    failure.value = describeError(t, error);
    step.value = 'failed';
  }

  function signedOut(): void {
    options.onSignedOut?.();
    step.value = 'login';
  }

  async function notMe(): Promise<void> {
    try {
      await signOut();
      signedOut();
    } catch (error) {
      showFailure(error);
    }
  }

  async function signedInAlready(again: boolean): Promise<boolean | undefined> {
    try {
      return (await ensureMe()) !== null && !again;
    } catch (error) {
      showFailure(error);
      return undefined;
    }
  }

  useStepFocus<SharedSignInStep | Own>(step, ['loading', 'redirecting'], (now) => {
    if (now === 'login') setPageTitle('titles.signIn');
    else options.nameTab(now);
  });
  onMounted(options.start);

  return { step, failure, start: options.start, signedOut, showFailure, notMe, signedInAlready };
}

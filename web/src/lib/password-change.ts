/**
 * A password change's one problem at a time (my account, the forced change) and what each field shows for
 * it: the current-password field its own two, NewPasswordFields the length rule, the server's refusal and
 * the repeat that differs.
 */

/** What NewPasswordFields marks on the new password and its repeat. */
export interface NewPasswordProblems {
  /** The new password breaks the length rule. */
  tooShort: boolean;
  /** The server's reason for refusing the new password, in the page's language ('' for none). */
  refusal: string;
  /** The repeat differs: the message that says so ('' when it matches). */
  mismatch: string;
}

type Translate = (key: string) => string;

export type PasswordChangeProblem =
  | ''
  | 'forcedChange.givenRequired'
  | 'account.passwordLength'
  | 'account.passwordsDiffer'
  | 'account.currentWrong';

/** The text under the current-password field, or none. */
export function currentPasswordProblem(t: Translate, problem: PasswordChangeProblem): string | undefined {
  return problem === 'forcedChange.givenRequired' || problem === 'account.currentWrong'
    ? t(problem)
    : undefined;
}

/** What NewPasswordFields marks; `refusal` is the server's reason in the page's language ('' for none). */
export function newPasswordProblems(
  t: Translate,
  problem: PasswordChangeProblem,
  refusal: string,
): NewPasswordProblems {
  return {
    tooShort: problem === 'account.passwordLength',
    refusal,
    mismatch: problem === 'account.passwordsDiffer' ? t(problem) : '',
  };
}

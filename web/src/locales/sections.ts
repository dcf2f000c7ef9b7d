/**
 * A locale's messages are its sections side by side: one file each under en/ and zh-CN/, with the same names
 * and no top-level key in two of them. Both locales are merged here, so the list of sections is written once.
 * The result keeps each section's own type: en's literal strings, from which en.ts makes MessageSchema.
 */
export function mergeSections<Common, SignIn, Flows, Account, Admin, People>(sections: {
  common: Common;
  signIn: SignIn;
  flows: Flows;
  account: Account;
  admin: Admin;
  people: People;
}) {
  return {
    ...sections.common,
    ...sections.signIn,
    ...sections.flows,
    ...sections.account,
    ...sections.admin,
    ...sections.people,
  };
}

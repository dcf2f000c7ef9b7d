/** English strings: account. Part of en.ts (see there for the message syntax). */
const account = {
  account: {
    title: 'My account',
    details: 'Who I am',
    uin: 'UIN',
    group: 'Group',
    registered: 'Registered',
    changePassword: 'Change my password',
    currentPassword: 'Current password',
    newPassword: 'New password',
    repeatPassword: 'New password again',
    passwordLength: 'Use 8 to 256 characters.',
    passwordsDiffer: 'The two new passwords differ.',
    currentWrong: 'The current password is wrong.',
    passwordChanged: 'Your password was changed.',
    directoryPassword: 'Change your password in the school directory',
    directoryPasswordHint:
      'Your account comes from the school directory, which checks your password: this sign-in service keeps none.',
    submitPassword: 'Change password',
    apps: 'Apps I allowed',
    appsIntro: 'These applications can read your UIN, group and registration time.',
    noApps: 'You have not allowed any application yet.',
    grantedAt: 'Allowed {date}',
    revoke: 'Revoke',
    revokeTitle: 'Revoke {app}?',
    revokeBody:
      '{app} will be signed out and will have to ask for your permission again the next time you use it.',
    revoked: '{app} can no longer use your account.',
    signOut: 'Sign out',
  },
  sessions: {
    title: 'Where I am signed in',
    intro: 'Sign out of a computer you no longer use. Apps that support it are signed out too.',
    thisBrowser: 'This browser',
    shared: 'Shared computer',
    signedInAt: 'Signed in {date}',
    lastSeen: 'last active {date}',
    from: 'from {ip}',
    unknownBrowser: 'Unknown browser',
    signOut: 'Sign out',
    signOutEverywhere: 'Sign out everywhere',
    everywhereTitle: 'Sign out everywhere?',
    everywhereBody: 'Every browser where you are signed in, this one included, is signed out.',
    signedOut: 'That browser was signed out.',
    sharedComputer: 'This is a shared computer',
    sharedComputerHint:
      'Signed out when the browser closes or after 15 minutes without use; each app asks before using your account.',
  },
  userFactors: {
    column: 'Second factors',
    none: 'None',
    totp: 'Authenticator app',
    passkey: 'Passkey',
    remove: 'Remove second factors',
    removeTitle: 'Remove the second factors of {uin}?',
    removeBody:
      'For someone who lost their phone or passkey: their authenticator app, passkeys and recovery codes stop working, and they sign in with their password alone until they set up a new one. This is recorded in the audit trail.',
    removed: '{uin} can now sign in with their password alone.',
    alsoRemove: 'They also lost their phone or passkey: remove their second factors too',
    alsoRemoveHint:
      'Their authenticator app, passkeys and recovery codes stop working; with the code they choose a password and sign in with it alone, then set up a new second factor.',
    createCode: 'Create the reset code',
    removedWithCode: 'The second factors of {uin} were removed.',
  },
} as const;

export default account;

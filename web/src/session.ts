/**
 * Who is signed in, shared by every page: `null` when nobody is, `undefined` until the first answer.
 */
import { ref } from 'vue';
import { api, EnvelopeCode, ApiError, type MeView, onPasswordChangeRequired } from './api';

/** With `must_change_password`, the pages show the password change first (ForcedPasswordChange.vue). */
export const me = ref<MeView | null | undefined>(undefined);

// A call refused with code 9 means the password must be changed first, whatever `me` said before.
onPasswordChangeRequired(() => {
  if (me.value) me.value = { ...me.value, must_change_password: true };
});

/** Asks the server who is signed in; a 401 means nobody (not an error). */
export async function loadMe(): Promise<MeView | null> {
  try {
    me.value = await api.me();
  } catch (error) {
    if (error instanceof ApiError && error.code === EnvelopeCode.NotSignedIn) me.value = null;
    else throw error;
  }
  return me.value;
}

/**
 * The uin a person just set a password for on `#/reset`: the sign-in form they go back to starts with it
 * (docs/interface.md#people-groups-and-audit). Read once.
 */
export const resetUin = ref<number | undefined>(undefined);

/** Where every sign-out ends: "You are signed out" (docs/interface.md#sessions-and-sign-out). */
export const SIGNED_OUT = { path: '/logout', query: { done: '1' } } as const;

export async function signOut(): Promise<void> {
  await api.logout();
  me.value = null;
}

let firstLoad: Promise<MeView | null> | undefined;

/** The signed-in user, asking the server only the first time (pages call this on entry). */
export function ensureMe(): Promise<MeView | null> {
  if (me.value !== undefined) return Promise.resolve(me.value);
  firstLoad ??= loadMe().finally(() => {
    firstLoad = undefined;
  });
  return firstLoad;
}

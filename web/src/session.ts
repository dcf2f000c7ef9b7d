/**
 * Who is signed in, shared by every page: `null` when nobody is, `undefined` until the first answer.
 */
import { ref } from 'vue';
import { api, EnvelopeCode, ApiError, type UserView } from './api';

export const me = ref<UserView | null | undefined>(undefined);

/** Asks the server who is signed in; a 401 means nobody (not an error). */
export async function loadMe(): Promise<UserView | null> {
  try {
    me.value = await api.me();
  } catch (error) {
    if (error instanceof ApiError && error.code === EnvelopeCode.NotSignedIn) me.value = null;
    else throw error;
  }
  return me.value;
}

export async function signOut(): Promise<void> {
  await api.logout();
  me.value = null;
}

let firstLoad: Promise<UserView | null> | undefined;

/** The signed-in user, asking the server only the first time (pages call this on entry). */
export function ensureMe(): Promise<UserView | null> {
  if (me.value !== undefined) return Promise.resolve(me.value);
  firstLoad ??= loadMe().finally(() => {
    firstLoad = undefined;
  });
  return firstLoad;
}

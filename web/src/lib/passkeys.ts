/**
 * The browser's half of the passkey ceremonies (WebAuthn Level 2), by @simplewebauthn/browser: it turns the
 * server's options JSON into a navigator.credentials call and the credential back into JSON.
 */
import { api, type PasskeyView, type SignedInView } from '../api';

/**
 * Whether this browser can use passkeys at all (WebAuthn present, which browsers offer in secure contexts
 * only). Checked without the library, which is loaded only when a ceremony starts (out of the sign-in
 * page's first bundle).
 */
export const passkeysSupported = (): boolean => typeof window.PublicKeyCredential === 'function';

const webauthn = () => import('@simplewebauthn/browser');

/** The user closed the browser's passkey prompt, or it timed out: not an error worth a red box. */
export function isPasskeyCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/**
 * Creates a passkey on this device and registers it under `name`; `password`, typed again, when the sign-in
 * is over 5 minutes old (docs/interface.md#second-factor).
 */
export async function addPasskey(
  name: string,
  password?: string,
): Promise<{ passkey: PasskeyView; recovery_codes?: string[] }> {
  const [{ startRegistration }, optionsJSON] = await Promise.all([webauthn(), api.passkeyOptions(password)]);
  return api.addPasskey(name, await startRegistration({ optionsJSON }));
}

/** Completes a pending sign-in with a passkey. */
export async function passkeySecondFactor(): Promise<SignedInView> {
  const [{ startAuthentication }, optionsJSON] = await Promise.all([webauthn(), api.secondFactorOptions()]);
  return api.completeSignIn({ passkey: await startAuthentication({ optionsJSON }) });
}

/** Signs in with a passkey alone (it knows whose it is); `shared`: "This is a shared computer". */
export async function passkeySignIn(shared: boolean): Promise<SignedInView> {
  const [{ startAuthentication }, optionsJSON] = await Promise.all([webauthn(), api.passkeyLoginOptions()]);
  return api.passkeyLogin(await startAuthentication({ optionsJSON }), shared);
}

/** Second factors: answering a pending sign-in, and setting TOTP and passkeys up (docs/interface.md#second-factor). */

import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';

import { call, enc } from './http';
import type { PasskeyView, SecondFactorAnswer, SecondFactorsView, SignedInView } from './types';

export const secondFactorApi = {
  completeSignIn: (answer: SecondFactorAnswer) =>
    call<SignedInView>('POST', '/v1/account/login/second-factor', answer),
  secondFactorOptions: () =>
    call<PublicKeyCredentialRequestOptionsJSON>('POST', '/v1/account/login/second-factor/options', {}),
  passkeyLoginOptions: () =>
    call<PublicKeyCredentialRequestOptionsJSON>('POST', '/v1/account/passkey-login/options', {}),
  passkeyLogin: (response: AuthenticationResponseJSON, shared: boolean) =>
    call<SignedInView>('POST', '/v1/account/passkey-login', { response, ...(shared && { shared: true }) }),
  secondFactors: () => call<SecondFactorsView>('GET', '/v1/account/second-factors'),
  // `password`: typed again when the sign-in is over 5 minutes old (docs/interface.md#second-factor).
  totpSetup: (password?: string) =>
    call<{ secret: string; otpauth_uri: string }>('POST', '/v1/account/totp/setup', { password }),
  totpConfirm: (code: string) =>
    call<{ recovery_codes?: string[] }>('POST', '/v1/account/totp/confirm', { code }),
  totpRemove: (password: string) => call<object>('DELETE', '/v1/account/totp', { password }),
  passkeyOptions: (password?: string) =>
    call<PublicKeyCredentialCreationOptionsJSON>('POST', '/v1/account/passkeys/options', { password }),
  addPasskey: (name: string, response: RegistrationResponseJSON) =>
    call<{ passkey: PasskeyView; recovery_codes?: string[] }>('POST', '/v1/account/passkeys', {
      name,
      response,
    }),
  removePasskey: (id: string, password?: string) =>
    call<object>('DELETE', `/v1/account/passkeys/${enc(id)}`, { password }),
  regenerateRecoveryCodes: (password: string) =>
    call<{ recovery_codes: string[] }>('POST', '/v1/account/recovery-codes', { password }),
};

/**
 * The shapes of the WebAuthn responses the pages send (WebAuthn Level 2 §5.1 `PublicKeyCredential`, as
 * JSON by @simplewebauthn/browser): checked at the route, so a malformed one is a 400, not a library error.
 * Unknown members are allowed: browsers add extension results over time.
 */
import { Type } from '@sinclair/typebox';

const Base64Url = (maxLength: number) => Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength });

/** The members every `PublicKeyCredential` has, whichever ceremony made it. */
const CREDENTIAL_MEMBERS = {
  id: Base64Url(1024),
  rawId: Base64Url(1024),
  type: Type.Literal('public-key'),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
};

/** `AuthenticatorAttestationResponse` of a registration (navigator.credentials.create). */
export const RegistrationResponseInput = Type.Object(
  {
    ...CREDENTIAL_MEMBERS,
    response: Type.Object(
      {
        clientDataJSON: Base64Url(4096),
        attestationObject: Base64Url(16_384),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/** `AuthenticatorAssertionResponse` of a sign-in (navigator.credentials.get). */
export const AuthenticationResponseInput = Type.Object(
  {
    ...CREDENTIAL_MEMBERS,
    response: Type.Object(
      {
        clientDataJSON: Base64Url(4096),
        authenticatorData: Base64Url(4096),
        signature: Base64Url(2048),
        userHandle: Type.Optional(Base64Url(256)),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/**
 * The options of a WebAuthn ceremony as the server answers them (`PublicKeyCredentialCreationOptionsJSON` or
 * `PublicKeyCredentialRequestOptionsJSON`, WebAuthn Level 3 §5.4, §5.5), for the page to pass to the browser.
 */
export const CeremonyOptions = Type.Object(
  { challenge: Base64Url(1024) },
  { additionalProperties: true, description: 'WebAuthn options (PublicKeyCredential…OptionsJSON)' },
);

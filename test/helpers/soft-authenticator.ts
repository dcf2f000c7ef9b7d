/**
 * A software WebAuthn authenticator for HTTP tests (WebAuthn Level 2 §6): ES256 credentials, "none"
 * attestation, discoverable, with user verification. It answers the options JSON the server sends with the
 * response JSON a browser would post, so passkey ceremonies can be tested without a browser.
 */
import { type KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/** The little CBOR (RFC 8949) an attestation object needs: integers, byte and text strings, maps. */
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  const bytes = Buffer.alloc(3);
  bytes[0] = (major << 5) | 25;
  bytes.writeUInt16BE(length, 1);
  return bytes;
}

function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  const parts = [head(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item));
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const b64url = (data: Buffer): string => data.toString('base64url');
const uint32 = (n: number): Buffer => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(n);
  return bytes;
};

/** WebAuthn §6.1 authenticator data flags. */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

interface Credential {
  readonly id: Buffer;
  readonly privateKey: KeyObject;
  readonly userHandle: string;
  readonly synced: boolean;
  counter: number;
}

export interface CreationOptions {
  challenge: string;
  user: { id: string };
}

export interface RequestOptions {
  challenge: string;
  allowCredentials?: { id: string }[];
}

export interface AuthenticatorOptions {
  /** Whether the user is verified (PIN, biometrics); true unless a test says otherwise. */
  readonly userVerified?: boolean;
  /** A synced ("multi-device") passkey: backup eligible and backed up. */
  readonly synced?: boolean;
}

export class SoftAuthenticator {
  private readonly credentials: Credential[] = [];
  private readonly rpId: string;

  constructor(
    private readonly origin: string,
    private readonly options: AuthenticatorOptions = {},
  ) {
    this.rpId = new URL(origin).hostname;
  }

  private flags(extra: number, credential?: Pick<Credential, 'synced'>): number {
    const synced = credential?.synced ?? this.options.synced ?? false;
    return UP | (this.options.userVerified === false ? 0 : UV) | (synced ? BE | BS : 0) | extra;
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** navigator.credentials.create(): a registration response for these creation options. */
  register(options: CreationOptions, origin = this.origin): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credential: Credential = {
      id: randomBytes(16),
      privateKey,
      userHandle: options.user.id,
      synced: this.options.synced ?? false,
      counter: 0,
    };
    this.credentials.push(credential);
    // RFC 9053 §7.1.1: an EC2 key, P-256, for ES256.
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([this.flags(AT, credential)]),
      uint32(0),
      Buffer.alloc(16),
      length,
      credential.id,
      cbor(coseKey),
    ]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get(): an assertion for these request options, by an allowed credential. */
  assert(options: RequestOptions, origin = this.origin): Record<string, unknown> {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const credential = this.credentials.find((c) => allowed.length === 0 || allowed.includes(b64url(c.id)));
    if (!credential) throw new Error('the soft authenticator holds no allowed credential');
    credential.counter += 1;
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([this.flags(0, credential)]),
      uint32(credential.counter),
    ]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientDataJSON)]),
      credential.privateKey,
    );
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}

/**
 * oidc-provider ships no type declarations. This is the small part of its v9 API the bench peer uses,
 * typed from the package's source (lib/provider.js, lib/models/*.js).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Promise<Record<string, unknown>>;
  }

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: string;
  }

  export interface Configuration {
    adapter?: new (model: string) => Adapter;
    clients?: ClientMetadata[];
    findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
    claims?: Record<string, string[]>;
    scopes?: string[];
    features?: Record<string, { enabled: boolean; [option: string]: unknown }>;
    pkce?: { required?: (ctx: unknown, client: unknown) => boolean };
    ttl?: Record<string, number>;
    cookies?: { keys?: string[] };
    formats?: { bitsOfOpaqueRandomness?: number };
    [option: string]: unknown;
  }

  export interface Client {
    readonly clientId: string;
  }

  interface TokenInit {
    accountId: string;
    client: Client;
    grantId: string;
    [field: string]: unknown;
  }

  interface SavedToken {
    /** Saves the token; answers its value (the opaque string handed to clients). */
    save(): Promise<string>;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Client: { find(clientId: string): Promise<Client | undefined> };
    readonly Grant: new (init: { accountId: string; clientId: string }) => Grant;
    readonly AuthorizationCode: new (init: TokenInit) => SavedToken;
    readonly AccessToken: new (init: TokenInit) => SavedToken;
  }

  export default Provider;
}

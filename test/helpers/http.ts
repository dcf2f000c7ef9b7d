/** A tiny cookie-keeping client for the session API, as a browser on the same origin would call it. */
import type { Fetch } from './inject-fetch.js';

/**
 * Where the server is: its URL (reached with the global fetch), or a test server (./server.ts), reached
 * with its own `fetch` (over `inject` or a socket, as its suite chose); a `describeOnDatabases` fixture's
 * server is read at each call, so a browser can be made before the suite's server has started.
 */
export type ServerAddress = string | { readonly baseUrl: string; readonly fetch?: Fetch };

export class Browser {
  private cookie: string | undefined;

  constructor(private readonly server: ServerAddress) {}

  get baseUrl(): string {
    return typeof this.server === 'string' ? this.server : this.server.baseUrl;
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const init: RequestInit = {
      method,
      headers: {
        origin: this.baseUrl,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      redirect: 'manual',
    };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const response =
      typeof this.server === 'string' || this.server.fetch === undefined
        ? await fetch(this.baseUrl + path, init)
        : await this.server.fetch(path, init);
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0] ?? '';
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    return response;
  }

  async login(uin: number, password: string): Promise<Response> {
    return this.call('POST', '/v1/account/login', { uin, password });
  }

  get sessionCookie(): string | undefined {
    return this.cookie;
  }
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

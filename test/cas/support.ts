/** Shared steps of the CAS suites: an app with CAS services, /cas/login, validation. */
import { expect } from 'vitest';
import type { NewApp } from '../../src/domain/apps.js';
import { type Client, registerClient } from '../helpers/fixture.js';
import type { Browser } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

export const SERVICE = 'https://lib.example.edu/portal';

/** Registers an app whose CAS services are `services` (SERVICE by default). */
export function casApp(
  server: TestServer,
  services: readonly string[] = [SERVICE],
  extra: Partial<NewApp> = {},
): Promise<Client> {
  return registerClient(server, { casServices: services, ...extra });
}

/** `GET /cas/login?…` with the browser's cookie, redirects not followed. */
export function casLogin(browser: Browser, params: Record<string, string>): Promise<Response> {
  return browser.call('GET', `/cas/login?${new URLSearchParams(params).toString()}`);
}

/** The ticket /cas/login redirected to the service with (fails when there is none). */
export async function ticketFor(
  browser: Browser,
  service = SERVICE,
  extra: Record<string, string> = {},
): Promise<string> {
  const response = await casLogin(browser, { service, ...extra });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location') ?? '');
  const ticket = location.searchParams.get('ticket');
  expect(ticket).toMatch(/^ST-[A-Za-z0-9-]+$/);
  return ticket ?? '';
}

/** A validation endpoint's answer: status, content type and body. */
export async function validate(
  server: TestServer,
  path: string,
  params: Record<string, string>,
): Promise<{ status: number; type: string; body: string }> {
  const response = await server.fetch(`${path}?${new URLSearchParams(params).toString()}`);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

/** The failure code of a CAS 2.0/3.0 XML answer, or undefined on success. */
export function failureCode(xml: string): string | undefined {
  return /<cas:authenticationFailure code="([A-Z_]+)"/.exec(xml)?.[1];
}

export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  await waitFor(check, { timeout: timeoutMs });
}

/**
 * The CAS service registry's rules (docs/interface.md#cas-protocol). An app registers up to 20 service URLs,
 * each canonical (the redirect URI rules: https, or http on loopback; no credentials, no fragment). A
 * `service` parameter must be canonical itself (one that changes under WHATWG URL serialization, e.g. with
 * `/../`, is refused), and matches a registered URL when it equals it or extends it right after a `/`, `?`
 * or `#` (a registered URL ending in `/` is its own boundary): never a host wildcard, so never another
 * scheme, host or port.
 */
import { redirectUriProblemMessage } from '../domain/redirect-uris.js';
import type { AppRecord } from '../storage/store.js';

export const MAX_CAS_SERVICES = 20;
/** CAS 3.0 §2.1.1: the service parameter is a URL; anything longer than this is refused unread. */
const MAX_SERVICE_LENGTH = 2000;

/** Why `url` may not be registered as a CAS service, or undefined when it may. */
export function casServiceProblem(url: string): string | undefined {
  const problem = redirectUriProblemMessage(url);
  return problem && `CAS service ${JSON.stringify(url)} ${problem}`;
}

/** Validates an app's list; answers the first problem, naming the URL. */
export function casServicesProblem(urls: readonly string[]): string | undefined {
  if (urls.length > MAX_CAS_SERVICES) return `at most ${MAX_CAS_SERVICES} CAS services are allowed`;
  if (new Set(urls).size !== urls.length) return 'CAS services must not repeat';
  for (const url of urls) {
    const problem = casServiceProblem(url);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Whether a `service` parameter is acceptable at all: the registration rules for the part before any `#`,
 * and canonical as a whole.
 */
export function isCanonicalService(service: string): boolean {
  if (service.length > MAX_SERVICE_LENGTH) return false;
  const hash = service.indexOf('#');
  if (redirectUriProblemMessage(hash === -1 ? service : service.slice(0, hash)) !== undefined) return false;
  try {
    return new URL(service).href === service;
  } catch {
    return false;
  }
}

/** Whether `service` is `registered` or extends it on a path boundary. */
export function serviceMatches(registered: string, service: string): boolean {
  if (service === registered) return true;
  if (!service.startsWith(registered)) return false;
  if (registered.endsWith('/')) return true;
  const next = service.charAt(registered.length);
  return next === '/' || next === '?' || next === '#';
}

/** The registered URL of `app` that `service` matches (the longest), or undefined. */
export function matchingService(app: AppRecord, service: string): string | undefined {
  let best: string | undefined;
  for (const registered of app.casServices ?? []) {
    if (serviceMatches(registered, service) && registered.length > (best?.length ?? -1)) best = registered;
  }
  return best;
}

/**
 * The enabled app that `service` belongs to, or undefined (unregistered, non-canonical, or its app is
 * disabled). When two apps register overlapping URLs, the longer registration wins.
 */
export function findServiceApp(apps: readonly AppRecord[], service: string): AppRecord | undefined {
  if (!isCanonicalService(service)) return undefined;
  let best: { app: AppRecord; length: number } | undefined;
  for (const app of apps) {
    if (app.disabled) continue;
    const registered = matchingService(app, service);
    if (registered !== undefined && registered.length > (best?.length ?? -1)) {
      best = { app, length: registered.length };
    }
  }
  return best?.app;
}

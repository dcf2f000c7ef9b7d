/** The CAS service registry's rules (src/cas/services.ts, docs/interface.md#cas-protocol). */
import { describe, expect, it } from 'vitest';
import {
  casServicesProblem,
  findServiceApp,
  isCanonicalService,
  serviceMatches,
} from '../../src/cas/services.js';
import type { AppRecord } from '../../src/storage/store.js';

function app(casServices: string[], disabled = false): AppRecord {
  return {
    clientId: `app-${casServices.join(',')}`,
    name: 'x',
    emoji: '📚',
    secretHash: '',
    redirectUris: [],
    createdAt: 0,
    disabled,
    allowRefreshTokens: true,
    allowedGroups: [],
    postLogoutRedirectUris: [],
    backchannelLogoutUri: null,
    backchannelLogoutLast: null,
    casServices,
  };
}

describe('registering CAS services', () => {
  it('accepts canonical https URLs and http on loopback', () => {
    expect(casServicesProblem(['https://lib.example.edu/', 'http://127.0.0.1:8080/cas.php'])).toBeUndefined();
  });

  it('refuses non-canonical, plain http elsewhere, credentials, fragments, repeats and more than 20', () => {
    expect(casServicesProblem(['https://lib.example.edu/a/../b'])).toMatch(/canonical/);
    expect(casServicesProblem(['https://LIB.example.edu/'])).toMatch(/canonical/);
    expect(casServicesProblem(['http://lib.example.edu/'])).toMatch(/https/);
    expect(casServicesProblem(['https://u:p@lib.example.edu/'])).toMatch(/user name/);
    expect(casServicesProblem(['https://lib.example.edu/#x'])).toMatch(/fragment/);
    expect(casServicesProblem(['https://a.example/', 'https://a.example/'])).toMatch(/repeat/);
    const many = Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`);
    expect(casServicesProblem(many)).toMatch(/at most 20/);
  });
});

describe('matching a service parameter', () => {
  it('matches the registered URL itself, and extensions right after /, ? or #', () => {
    const registered = 'https://lib.example.edu/portal';
    for (const service of [registered, `${registered}/x`, `${registered}?a=1`, `${registered}#top`]) {
      expect(serviceMatches(registered, service)).toBe(true);
    }
  });

  it('never matches a prefix without a boundary', () => {
    expect(serviceMatches('https://lib.example.edu/portal', 'https://lib.example.edu/portal-evil')).toBe(
      false,
    );
    expect(serviceMatches('https://lib.example.edu/portal', 'https://lib.example.edu/portals')).toBe(false);
    expect(serviceMatches('https://lib.example.edu/a?x=1', 'https://lib.example.edu/a?x=10')).toBe(false);
  });

  it('takes a registered URL ending in / as its own boundary', () => {
    expect(serviceMatches('https://lib.example.edu/', 'https://lib.example.edu/anything?x')).toBe(true);
  });

  it('never matches another scheme, host or port', () => {
    const registered = 'https://lib.example.edu/';
    for (const service of [
      'http://lib.example.edu/',
      'https://lib.example.edu.evil.example/',
      'https://lib.example.edu:8443/',
      'https://evil.example/https://lib.example.edu/',
    ]) {
      expect(findServiceApp([app([registered])], service)).toBeUndefined();
    }
  });

  it('refuses a service that changes under canonicalization', () => {
    expect(isCanonicalService('https://lib.example.edu/a/../b')).toBe(false);
    expect(isCanonicalService('https://lib.example.edu/%2e%2e/b')).toBe(false);
    expect(isCanonicalService('https://lib.example.edu/x y')).toBe(false);
    expect(isCanonicalService('https://lib.example.edu\\@evil.example/')).toBe(false);
    expect(
      findServiceApp([app(['https://lib.example.edu/'])], 'https://lib.example.edu/a/../b'),
    ).toBeUndefined();
  });

  it('ignores disabled apps and prefers the longest registration', () => {
    const general = app(['https://lib.example.edu/']);
    const specific = app(['https://lib.example.edu/special']);
    expect(findServiceApp([general, specific], 'https://lib.example.edu/special/x')).toBe(specific);
    expect(
      findServiceApp([app(['https://lib.example.edu/'], true)], 'https://lib.example.edu/'),
    ).toBeUndefined();
  });
});

/**
 * The school's directory (docs/interface.md#the-schools-directory, docs/operations.md#the-schools-directory-ldap--active-directory):
 * LDAP or Active Directory, spoken through `ldapts` (no hand-written BER). Every connection is encrypted before
 * anything is sent that matters: `ldap://` is upgraded with StartTLS (RFC 4513 §3) before the first bind, and a
 * server that refuses StartTLS is an outage, never a reason to bind in the clear. `ldaps://` is TLS from the start.
 *
 * Two kinds of failure are told apart: the directory said no (no such person, a wrong password), and the
 * directory could not be asked (down, too slow, a TLS or service-account problem), which is `DirectoryUnavailable`.
 */
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Client, Entry } from 'ldapts';
import type { LdapConfig } from '../config/ldap.js';
import {
  type DirectoryPerson,
  type DirectorySignIn,
  type SkippedEntry,
  type DirectoryListing,
  userFilterFor,
  everyoneFilter,
  personOf,
  isPerson,
  isRefusedBind,
  referralsToPeople,
} from './directory-entries.js';
import { type LdapLibrary, loadLdapLibrary } from './ldap-library.js';
export type {
  DirectoryPerson,
  DirectorySignIn,
  SkippedEntry,
  DirectoryListing,
} from './directory-entries.js';

/** The directory could not be asked: the sign-in of a directory user cannot be decided (503, code 10). */
export class DirectoryUnavailable extends Error {
  override readonly name = 'DirectoryUnavailable';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

const PAGE_SIZE = 500;

/** Told after every connection whether the directory answered (undefined) or why it could not be asked. */
export type DirectoryHealthListener = (problem: DirectoryUnavailable | undefined) => void;

export class Directory {
  private readonly attributes: string[];
  /** Set by the server (src/http/directory-outage.ts), which logs an outage once and counts after. */
  health: DirectoryHealthListener | undefined;

  constructor(readonly config: LdapConfig) {
    const a = config.attributes;
    this.attributes = [...new Set([a.uin, a.name, a.email, a.groups])];
  }

  /** What the messages call the directory: its URL (never the bind DN or password). */
  get label(): string {
    return this.config.url;
  }

  /**
   * Checks a person's directory password: search as the bind DN for the uin, then bind as the DN found with
   * the password. An empty password is never sent: RFC 4513 §5.1.2 makes it an unauthenticated bind, which
   * many servers accept, and which proves nothing. Throws DirectoryUnavailable when the directory cannot be
   * asked.
   */
  async signIn(uin: number, password: string): Promise<DirectorySignIn> {
    return this.session(async (client, ldap) => {
      const person = await this.find(client, ldap, uin);
      if (person === undefined || password === '') return { outcome: 'refused' };
      try {
        await client.bind(person.dn, password);
      } catch (error) {
        if (isRefusedBind(ldap, error)) return { outcome: 'refused' };
        throw error;
      }
      return { outcome: 'accepted', person };
    });
  }

  /**
   * Searches for the uin as a sign-in does, and discards the answer: the directory work a refused sign-in of a
   * local user does too, so that its time does not tell local accounts from unknown uins
   * (docs/security.md#the-schools-directory). Never binds: a local user's password is not the directory's.
   */
  async lookUpOnly(uin: number): Promise<void> {
    await this.session(async (client, ldap) => {
      await this.find(client, ldap, uin);
    });
  }

  /**
   * Everyone the filter matches under the user base, read with the paged results control (RFC 2696) so that a
   * directory's size limit per answer does not cut the list. Any error (including a size or time limit the
   * server still imposes) throws, and so does a referral to another server that may hold people: a partial
   * list must never look like a whole one (its missing people would be disabled).
   */
  async listPeople(): Promise<DirectoryListing> {
    return this.session(async (client) => {
      const { searchEntries, searchReferences } = await client.search(this.config.userBase, {
        scope: 'sub',
        filter: everyoneFilter(this.config.userFilter),
        attributes: this.attributes,
        paged: { pageSize: PAGE_SIZE },
      });
      const elsewhere = referralsToPeople(searchReferences);
      if (elsewhere.length > 0) {
        throw new Error(
          `part of ${this.config.userBase} is held by another server, which campus-sso does not follow (${elsewhere.slice(0, 3).join(', ')}${elsewhere.length > 3 ? ', …' : ''}): set LDAP_USER_BASE to the part that holds the people`,
        );
      }
      const mapped = searchEntries.map((entry) => personOf(entry, this.config));
      const people = mapped.filter(isPerson);
      const skipped = mapped.filter((item): item is SkippedEntry => !isPerson(item));
      // Two entries with one uin: neither is trusted.
      const counts = new Map<number, number>();
      for (const person of people) counts.set(person.uin, (counts.get(person.uin) ?? 0) + 1);
      return {
        people: people.filter((person) => counts.get(person.uin) === 1),
        skipped: [
          ...skipped,
          ...people
            .filter((person) => (counts.get(person.uin) ?? 0) > 1)
            .map((person) => ({ dn: person.dn, reason: `uin ${person.uin} is held by more than one entry` })),
        ],
      };
    }, 0);
  }

  private async find(client: Client, ldap: LdapLibrary, uin: number): Promise<DirectoryPerson | undefined> {
    let searchEntries: Entry[];
    try {
      ({ searchEntries } = await client.search(this.config.userBase, {
        scope: 'sub',
        filter: userFilterFor(ldap, this.config.userFilter, uin),
        attributes: this.attributes,
        sizeLimit: 2,
      }));
    } catch (error) {
      // More entries than the two asked for: the directory answered, and it is ambiguous.
      if (error instanceof ldap.SizeLimitExceededError) return undefined;
      throw error;
    }
    // More than one entry for a uin is the directory's mistake: nobody signs in as either.
    if (searchEntries.length !== 1 || !searchEntries[0]) return undefined;
    const person = personOf(searchEntries[0], this.config);
    return isPerson(person) && person.uin === uin ? person : undefined;
  }

  /**
   * One connection: opened, encrypted, bound as the service account, used, closed. `deadlineMs` bounds the
   * whole of it (LDAP_TIMEOUT_MS for a sign-in; the sync's long listing has only the per-operation timeout).
   */
  private async session<T>(
    work: (client: Client, ldap: LdapLibrary) => Promise<T>,
    deadlineMs = this.config.timeoutMs,
  ): Promise<T> {
    const ldap = await loadLdapLibrary();
    const { url, ca, timeoutMs, startTls } = this.config;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const tlsOptions: ConnectionOptions = {
      ...(ca !== undefined && { ca: [ca] }),
      host,
      ...(isIP(host) === 0 && { servername: host }),
      minVersion: 'TLSv1.2',
    };
    // tlsOptions go to the constructor for ldaps:// only: given there for ldap://, ldapts's StartTLS fails.
    const client = new ldap.Client({
      url,
      timeout: timeoutMs,
      connectTimeout: timeoutMs,
      strictDN: false,
      ...(!startTls && { tlsOptions }),
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline =
      deadlineMs > 0
        ? new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new DirectoryUnavailable(`no answer from ${url} within ${deadlineMs} ms`)),
              deadlineMs,
            );
          })
        : undefined;
    const run = async (): Promise<T> => {
      try {
        // RFC 4513 §3: TLS first, then the bind; a server without StartTLS is not asked anything else.
        if (startTls) await client.startTLS({ ...tlsOptions });
        await client.bind(this.config.bindDn, this.config.bindPassword);
      } catch (error) {
        throw new DirectoryUnavailable(`${url}: ${describe(ldap, error)}`, error);
      }
      try {
        return await work(client, ldap);
      } catch (error) {
        if (error instanceof DirectoryUnavailable) throw error;
        throw new DirectoryUnavailable(`${url}: ${describe(ldap, error)}`, error);
      }
    };
    const running = run();
    // Past the deadline the work is abandoned: its late failure must not surface as an unhandled rejection.
    running.catch(() => undefined);
    try {
      const result = await (deadline ? Promise.race([running, deadline]) : running);
      this.health?.(undefined);
      return result;
    } catch (error) {
      if (error instanceof DirectoryUnavailable) this.health?.(error);
      throw error;
    } finally {
      clearTimeout(timer);
      client.unbind().catch(() => undefined);
    }
  }
}

/** An error in one line, without anything secret (ldapts' messages carry no credentials). */
function describe(ldap: LdapLibrary, error: unknown): string {
  if (error instanceof ldap.InvalidCredentialsError)
    return 'the bind DN or its password was refused (LDAP_BIND_DN, LDAP_BIND_PASSWORD_FILE)';
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

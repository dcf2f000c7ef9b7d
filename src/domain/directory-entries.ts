/**
 * What the directory's entries and filters mean here (directory.ts speaks LDAP): search filters with their
 * values escaped (RFC 4515 §3), a person's uin, name, email and group tags read from an entry.
 */
import type { Entry } from 'ldapts';
import type { LdapConfig } from '../config/ldap.js';
import type { LdapLibrary } from './ldap-library.js';
import { GROUP_TAG, MAX_GROUPS, MAX_NAME_LENGTH, emailProblem } from '../shared/people.js';
import { isValidUin } from '../shared/users.js';

/** A person as the directory describes them, mapped to what campus-sso keeps. */
export interface DirectoryPerson {
  readonly dn: string;
  readonly uin: number;
  readonly name: string | null;
  readonly email: string | null;
  /** Group tags made from the first RDN value of each group DN (docs/interface.md#the-schools-directory). */
  readonly groups: readonly string[];
  /** Group DNs whose tag still breaks the tag rule (or is beyond the 32 kept), reported and left out. */
  readonly skippedGroups: readonly string[];
}

/** How a directory user's password check ended. */
export type DirectorySignIn =
  { readonly outcome: 'accepted'; readonly person: DirectoryPerson } | { readonly outcome: 'refused' };

/** An entry the sync could not use, with why (its uin attribute is missing or not a uin). */
export interface SkippedEntry {
  readonly dn: string;
  readonly reason: string;
}

/** Everyone the directory holds under the user base that the filter matches. */
export interface DirectoryListing {
  readonly people: readonly DirectoryPerson[];
  readonly skipped: readonly SkippedEntry[];
}

/**
 * The user filter with the uin in it, escaped (the uin is digits, but the rule is the rule): RFC 4515 §3,
 * `*`, `(`, `)`, `\` and NUL written as `\XX` in a filter's value.
 */
export function userFilterFor(ldap: LdapLibrary, template: string, uin: number | string): string {
  return template.split('{uin}').join(ldap.Filter.escape(String(uin)));
}

/**
 * The filter that lists every person: `{uin}` becomes a presence test (`(uid={uin})` → `(uid=*)`), so the sync
 * reads exactly the people a sign-in could find.
 */
export function everyoneFilter(template: string): string {
  return template.split('{uin}').join('*');
}

/** One byte of a `\XX` escape, or the escaped character itself (RFC 4514 §3). */
function unescapeDnValue(raw: string): string | undefined {
  if (raw.startsWith('#')) return undefined; // A BER-encoded value: not a name.
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] ?? '';
    if (char === '\\') {
      const hex = raw.slice(i + 1, i + 3);
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else {
        const next = raw[i + 1] ?? '';
        bytes.push(...Buffer.from(next, 'utf8'));
        i += 1;
      }
    } else {
      bytes.push(...Buffer.from(char, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The group tag of a group's DN: the value of its first RDN, lower-cased, spaces turned into `-`
 * (`CN=Class 2026-3,OU=Groups,DC=school,DC=edu` → `class-2026-3`); undefined when that is not a tag.
 */
export function groupTagOf(dn: string): string | undefined {
  let end = 0;
  while (end < dn.length && dn[end] !== ',' && dn[end] !== '+' && dn[end] !== ';') {
    end += dn[end] === '\\' ? 2 : 1;
  }
  const rdn = dn.slice(0, end);
  const equals = rdn.indexOf('=');
  if (equals < 1) return undefined;
  const value = unescapeDnValue(rdn.slice(equals + 1).trim());
  if (value === undefined) return undefined;
  const tag = value.trim().toLowerCase().replace(/\s/g, '-');
  return GROUP_TAG.test(tag) ? tag : undefined;
}

/** An attribute's values as text, whatever case the server wrote its name in. */
function values(entry: Entry, attribute: string): string[] {
  const wanted = attribute.toLowerCase();
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'dn' || key.toLowerCase() !== wanted) continue;
    const list = Array.isArray(value) ? value : [value];
    return list.map((item) => (Buffer.isBuffer(item) ? item.toString('utf8') : item));
  }
  return [];
}

/** The person an entry describes, or why it cannot be one. */
export function personOf(entry: Entry, config: LdapConfig): DirectoryPerson | SkippedEntry {
  const attrs = config.attributes;
  const uinText = values(entry, attrs.uin)[0]?.trim() ?? '';
  const uin = /^[1-9]\d{0,15}$/.test(uinText) ? Number(uinText) : NaN;
  if (!isValidUin(uin)) {
    return {
      dn: entry.dn,
      reason: `${attrs.uin} ${uinText === '' ? 'is missing' : `"${uinText}" is not a uin`}`,
    };
  }
  const name = values(entry, attrs.name)[0]?.trim();
  const email = values(entry, attrs.email)[0]?.trim();
  const groups: string[] = [];
  const skippedGroups: string[] = [];
  for (const groupDn of values(entry, attrs.groups)) {
    const tag = groupTagOf(groupDn);
    if (tag === undefined || groups.length >= MAX_GROUPS) skippedGroups.push(groupDn);
    else if (!groups.includes(tag)) groups.push(tag);
  }
  return {
    dn: entry.dn,
    uin,
    name: name === undefined || name === '' ? null : [...name].slice(0, MAX_NAME_LENGTH).join(''),
    email: email === undefined || emailProblem(email) !== undefined ? null : email,
    groups: groups.sort(),
    skippedGroups,
  };
}

export const isPerson = (item: DirectoryPerson | SkippedEntry): item is DirectoryPerson => 'uin' in item;

/** What a person's own bind answers when the password is not accepted (wrong, expired, locked, disabled). */
export function isRefusedBind(ldap: LdapLibrary, error: unknown): boolean {
  return (
    error instanceof ldap.InvalidCredentialsError ||
    error instanceof ldap.InappropriateAuthError ||
    error instanceof ldap.UnwillingToPerformError
  );
}

/**
 * Active Directory's own partitions, which a search from a domain's root always refers to (its DNS zones and
 * its configuration): they hold no people, so a referral to one of them leaves nobody unread.
 */
const PEOPLELESS_AD_PARTITIONS = ['dc=domaindnszones', 'dc=forestdnszones', 'cn=configuration'];

/**
 * The referrals of a search (RFC 4511 §4.5.3: part of the subtree is held by another server, which campus-sso
 * does not follow) that may hold people: every one but those to Active Directory's DNS and configuration
 * partitions. A listing with any of these is not the whole directory.
 */
export function referralsToPeople(urls: readonly string[]): string[] {
  return urls.filter((url) => {
    // ldap://host/<dn>?…: the DN is the URL's path (RFC 4516), percent-encoded.
    const path = /^ldaps?:\/\/[^/]*\/([^?]*)/i.exec(url)?.[1];
    let dn = '';
    try {
      dn = decodeURIComponent(path ?? '');
    } catch {
      // Not a DN we can read: may hold anyone.
    }
    const first = dn.split(',')[0]?.replace(/\s+/g, '').toLowerCase() ?? '';
    return !PEOPLELESS_AD_PARTITIONS.includes(first);
  });
}

import type * as Ldapts from 'ldapts';

/** The `ldapts` module: the LDAP client, its filter escaping and its error classes. */
export type LdapLibrary = typeof Ldapts;

let library: Promise<LdapLibrary> | undefined;

/**
 * `ldapts`, loaded on the first directory connection rather than at start-up (~0.7 MB of heap): a server
 * without LDAP_URL never opens one.
 */
export function loadLdapLibrary(): Promise<LdapLibrary> {
  return (library ??= import('ldapts'));
}

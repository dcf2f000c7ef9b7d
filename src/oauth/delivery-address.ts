/**
 * Where a back-channel logout may be delivered (docs/security.md#back-channel-logout-destinations): only to
 * public addresses, checked on the address actually connected to at send time (so a name that resolves to an
 * internal host, or is re-pointed after registration, is refused). Loopback is allowed only when BASE_URL is
 * itself loopback (a development or test set-up); private, link-local, shared, multicast and reserved ranges
 * are not, unless the operator names them in LOGOUT_ALLOWED_NETWORKS (the school's own app servers): a
 * registered URI must not turn the server into a way into the rest of the school's network (SSRF).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** The error a refused destination fails with; its code is what the admin page shows. */
export class ForbiddenDestinationError extends Error {
  override readonly name = 'ForbiddenDestinationError';
  readonly code = 'address not allowed';
  constructor(address: string) {
    super(`back-channel logout to ${address} is not allowed: not a public address`);
  }
}

/** RFC 6890 special-purpose ranges, loopback apart. */
function specialPurpose(): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8], // RFC 1918
    ['100.64.0.0', 10], // RFC 6598 shared address space
    ['169.254.0.0', 16], // link-local (cloud metadata services among them)
    ['172.16.0.0', 12], // RFC 1918
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.168.0.0', 16], // RFC 1918
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation
    ['203.0.113.0', 24], // documentation
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ] as const) {
    list.addSubnet(network, prefix, 'ipv4');
  }
  for (const [network, prefix] of [
    ['::', 128], // unspecified
    ['64:ff9b:1::', 48], // local-use NAT64
    ['100::', 64], // discard
    ['2001:db8::', 32], // documentation
    ['fc00::', 7], // unique local
    ['fe80::', 10], // link-local
    ['ff00::', 8], // multicast
  ] as const) {
    list.addSubnet(network, prefix, 'ipv6');
  }
  return list;
}

const SPECIAL = specialPurpose();
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is checked as the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/**
 * The school's own networks an operator allows (LOGOUT_ALLOWED_NETWORKS: addresses and CIDRs, checked at
 * start-up), as a BlockList; undefined when none.
 */
export function allowedNetworks(networks: readonly string[]): BlockList | undefined {
  if (networks.length === 0) return undefined;
  const list = new BlockList();
  for (const network of networks) {
    const [address = '', prefix] = network.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/**
 * Whether a logout token may be posted to this IP address: a public one, loopback when `allowLoopback`, and
 * any in the networks the operator allowed (`allowed`, from allowedNetworks).
 */
export function isAllowedDestination(ip: string, allowLoopback: boolean, allowed?: BlockList): boolean {
  const { address, family } = unmapped(ip);
  if (isIP(address) === 0) return false;
  if (allowed?.check(address, family) === true) return true;
  if (LOOPBACK.check(address, family)) return allowLoopback;
  return !SPECIAL.check(address, family);
}

/** Whether BASE_URL names this machine (then the apps it signs in may too). */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const { address, family } = unmapped(host);
  return isIP(address) !== 0 && LOOPBACK.check(address, family);
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) that refuses the connection when the name resolves to an address that is not
 * allowed: the check is on the very addresses the socket then connects to, so DNS cannot change between the
 * check and the connection.
 */
export function guardedLookup(allowLoopback: boolean, allowed?: BlockList) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !isAllowedDestination(entry.address, allowLoopback, allowed));
      if (refused) return callback(new ForbiddenDestinationError(refused.address), []);
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}

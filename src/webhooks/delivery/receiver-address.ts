import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Where a webhook may be sent: the scheme rule and the hosts exempt from the public-address rule. */
export interface ReceiverRules {
  allowHttp: boolean;
  allowedHosts: readonly string[];
}

/** Addresses that are not on the public internet (RFC 6890 special-purpose blocks, loopback, private, link-local, multicast). */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by the IPv4 address inside.
  const mapped = /^(?:::ffff:|::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  if (/^::ffff:/i.test(address)) return false;
  return !NON_PUBLIC.check(address, 'ipv6');
}

/** A URL refused as a webhook receiver; the message says why (shown to the caller). */
export class ReceiverRefused extends Error {
  override name = 'ReceiverRefused';
}

/** The URL's host as compared with WEBHOOK_ALLOWED_HOSTS (lower case, IPv6 in brackets). */
function hostOf(url: URL): string {
  return url.hostname.toLowerCase();
}

/** Checks a URL's form (scheme, no credentials); answers the parsed URL. */
export function parseReceiverUrl(raw: string, rules: ReceiverRules): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ReceiverRefused('url is not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    throw new ReceiverRefused(rules.allowHttp ? 'url must use https or http' : 'url must use https');
  }
  if (url.username || url.password) throw new ReceiverRefused('url must not contain credentials');
  return url;
}

/**
 * The address to connect to for `host`: resolved now and every address checked, so a name that
 * resolves to a private address (or is re-pointed there after the hook was saved: DNS rebinding)
 * is refused; the connection then goes to the address checked here, not to a second resolution.
 */
export async function resolveReceiver(host: string, rules: ReceiverRules): Promise<LookupAddress> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  let addresses: LookupAddress[];
  if (isIP(bare)) addresses = [{ address: bare, family: isIP(bare) }];
  else {
    try {
      addresses = await lookup(bare, { all: true, verbatim: true });
    } catch {
      throw new ReceiverRefused(`the host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new ReceiverRefused(`the host ${host} does not resolve`);
  if (!rules.allowedHosts.includes(host.toLowerCase())) {
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) {
      throw new ReceiverRefused(
        `the host ${host} resolves to a private or reserved address; list it in WEBHOOK_ALLOWED_HOSTS to allow it`,
      );
    }
  }
  return addresses[0];
}

/** Checks a URL as a receiver: its form and, now, where its host resolves. */
export async function checkReceiverUrl(raw: string, rules: ReceiverRules): Promise<URL> {
  const url = parseReceiverUrl(raw, rules);
  await resolveReceiver(hostOf(url), rules);
  return url;
}

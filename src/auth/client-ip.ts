import net from 'node:net';
import type { RequestHeaders } from '../http/response.ts';

/**
 * The proxies whose `X-Forwarded-For` is believed: addresses and CIDR ranges (`127.0.0.1,::1,10.0.0.0/8`).
 * Empty by default: the socket's peer is the client, and a client cannot pick its own rate-limit bucket.
 */
export class TrustedProxies {
  private readonly list = new net.BlockList();
  readonly size: number;

  constructor(entries: readonly string[] = []) {
    for (const entry of entries) {
      const [address, bits, extra] = entry.split('/');
      const type = net.isIP(address);
      const prefix = bits === undefined ? undefined : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (type === 0 || extra !== undefined || (prefix !== undefined && !(prefix <= (type === 4 ? 32 : 128)))) {
        throw new Error(`--trust-proxy takes IP addresses or CIDR ranges separated by commas (127.0.0.1,::1,10.0.0.0/8), got ${entry}`);
      }
      const family = type === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.list.addAddress(address, family);
      else this.list.addSubnet(address, prefix, family);
    }
    this.size = entries.length;
  }

  /** Parses the comma-separated form of `--trust-proxy` and `HCAS_TRUST_PROXY`. */
  static parse(text: string | undefined): TrustedProxies {
    return new TrustedProxies(
      (text ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }

  /** True when `address` (a valid IP) is a trusted proxy. */
  trusts(address: string): boolean {
    if (this.size === 0) return false;
    const type = net.isIP(address);
    return type !== 0 && this.list.check(address, type === 4 ? 'ipv4' : 'ipv6');
  }
}

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) is the IPv4 client 1.2.3.4. */
export function normalizeAddress(address: string): string {
  return address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
}

/**
 * The client's address. The socket peer, unless the peer is a trusted proxy: then `X-Forwarded-For` is
 * read from the right (each proxy appends the address it saw), skipping trusted proxies, and the first
 * untrusted address is the client. Entries left of it were written by the client and are ignored. An entry
 * that is not an IP address ends the walk at the last address known good.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, proxies: TrustedProxies): string {
  let client = normalizeAddress(peer ?? '');
  if (forwardedFor === undefined || !proxies.trusts(client)) return client;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i].trim());
    if (net.isIP(hop) === 0) break;
    client = hop;
    if (!proxies.trusts(hop)) break;
  }
  return client;
}

/**
 * The anonymous rate-limit bucket of an address: the address itself for IPv4, its /64 network for IPv6,
 * because one IPv6 customer usually holds a whole /64 and could otherwise rotate through addresses.
 */
export function anonymousSubject(address: string): string {
  if (net.isIPv6(address)) {
    const groups = expandIpv6(address);
    if (groups) return `ip:${groups.slice(0, 4).join(':')}::/64`;
  }
  return `ip:${address || 'unknown'}`;
}

function expandIpv6(address: string): string[] | undefined {
  const [head, tail] = address.split('%')[0].split('::');
  const parse = (part: string | undefined) => (part ? part.split(':') : []);
  const left = parse(head);
  const right = parse(tail);
  if (right.some((g) => g.includes('.')) || left.some((g) => g.includes('.'))) return undefined; // embedded IPv4: keep whole
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  return groups.length === 8 ? groups.map((g) => (parseInt(g, 16) || 0).toString(16)) : undefined;
}

/**
 * True when the socket peer is loopback and no proxy header says the request came through a proxy: the
 * server's own machine (its operator's metrics and probe detail; with `--loopback-unmetered`, the quick
 * start's uncounted calls). A proxy on the same machine connects from loopback too, and must not hand those
 * to the world.
 */
export function isLocalCaller(peer: string | undefined, headers: RequestHeaders): boolean {
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined || headers['x-real-ip'] !== undefined) return false;
  if (peer === undefined) return false;
  const address = peer.startsWith('::ffff:') ? peer.slice(7) : peer;
  return address === '::1' || (net.isIPv4(address) && address.startsWith('127.'));
}

import { isIPv4, isIPv6 } from 'node:net';

/**
 * Who sends a body, for the share of the body budget one sender may hold: the socket's remote
 * address — an IPv4 address, or the /64 of an IPv6 one (one host is usually given a whole /64, so
 * counting single IPv6 addresses would give it millions of shares). `X-Forwarded-For` does not
 * count: any anonymous caller can write it. Behind a proxy every body comes from the proxy's address
 * (docs/reliability.md says what that means).
 */
export function bodySource(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (isIPv4(remoteAddress)) return remoteAddress;
  const address = remoteAddress.split('%')[0] ?? remoteAddress;
  if (!isIPv6(address)) return 'unknown';
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` filled in, without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) stands for two groups.
  const dotted = right.at(-1)?.includes('.') || (tail === undefined && left.at(-1)?.includes('.')) ? 1 : 0;
  const zeros = Array.from({ length: Math.max(0, 8 - left.length - right.length - dotted) }, () => '0');
  return [...left, ...zeros, ...right].map((group) => group.replace(/^0+(?=.)/, '').toLowerCase());
}

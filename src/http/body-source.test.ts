import { describe, expect, it } from 'vitest';
import { bodySource } from './body-source.js';

describe('bodySource', () => {
  it.each([
    ['an IPv4 address is its own source', '203.0.113.7', '203.0.113.7'],
    ['an IPv4 address seen on a dual-stack socket is the same source', '::ffff:203.0.113.7', '203.0.113.7'],
    ['an IPv6 address counts by its /64', '2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['another address of the same /64 is the same source', '2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['a /64 with zeros left out', '2001:db8::1', '2001:db8:0:0::/64'],
    ['a trailing dotted part stands for two groups', '1::2:3:4:5:6.7.8.9', '1:0:2:3::/64'],
    ['a zone is not part of the address', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['loopback', '::1', '0:0:0:0::/64'],
    ['no address (the socket is gone)', undefined, 'unknown'],
    ['not an address', 'example.com', 'unknown'],
  ])('%s', (_what, address, source) => {
    expect(bodySource(address)).toBe(source);
  });
});

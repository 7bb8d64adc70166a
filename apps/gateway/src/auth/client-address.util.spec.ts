import { addressBucketOf } from './client-address.util.js';

describe('addressBucketOf', () => {
  it('keys an IPv4 address as itself, mapped into IPv6 or not', () => {
    expect(addressBucketOf('192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucketOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
  });

  it('keys an IPv6 address by its /64, whatever the rest', () => {
    expect(addressBucketOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucketOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressBucketOf('2001:db8:1:3::1')).not.toBe(addressBucketOf('2001:db8:1:2::1'));
  });
});

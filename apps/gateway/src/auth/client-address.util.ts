import ipaddr from 'ipaddr.js';

/**
 * The bucket of a client address for per-address limits. An IPv6 client usually holds a whole /64
 * (and can pick any address in it), so IPv6 addresses count per /64; an IPv4 address mapped into
 * IPv6 counts as that IPv4 address.
 */
export function addressBucketOf(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    address = (address as ipaddr.IPv6).toIPv4Address();
  }
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

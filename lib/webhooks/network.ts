import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Whether an address is on the public internet. Private, loopback, link-local (cloud metadata
 * 169.254.169.254), unique-local, carrier-grade NAT, multicast and reserved ranges are not.
 * IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged as the
 * IPv4 address they carry: `::7f00:1`, `64:ff9b::a00:1` or `2002:7f00:1::` reach 127.0.0.1 or
 * 10.0.0.1 on many networks.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.range() === "unicast";
  const embedded = embeddedIpv4(parsed as ipaddr.IPv6);
  if (embedded) return embedded.range() === "unicast";
  return parsed.range() === "unicast";
}

/** The IPv4 address an IPv6 address stands for, when it is one of the forms that embed one. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const last32 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0);
  // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks); :: and ::1 are not IPv4.
  if (zeros(0, 6) && (parts[6] !== 0 || parts[7]! > 1)) return last32(parts[6]!, parts[7]!);
  // IPv4-mapped ::ffff:a.b.c.d and the SIIT form ::ffff:0:a.b.c.d.
  if (zeros(0, 5) && parts[5] === 0xffff) return last32(parts[6]!, parts[7]!);
  if (zeros(0, 4) && parts[4] === 0xffff && parts[5] === 0) return last32(parts[6]!, parts[7]!);
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052).
  if (parts[0] === 0x64 && parts[1] === 0xff9b && zeros(2, 6)) return last32(parts[6]!, parts[7]!);
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056).
  if (parts[0] === 0x2002) return last32(parts[1]!, parts[2]!);
  return null;
}

/** 127.0.0.0/8 and ::1, also when written as an IPv4-mapped IPv6 address. */
export function isLoopbackAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "loopback";
}

/** Public, or loopback where loopback is allowed (development: lib/config.ts `allowLoopback`). */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  return isPublicAddress(address) || (allowLoopback && isLoopbackAddress(address));
}

/** `localhost` and `*.localhost` always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

export class BlockedAddressError extends Error {
  constructor(readonly address: string) {
    super(
      `Refused to deliver to the non-public address ${address} (\`npm run dev\` allows loopback; WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows private networks).`,
    );
    this.name = "BlockedAddressError";
  }
}

/**
 * Throws for a host known not to be public without a DNS lookup: a non-public IP literal, or a
 * `localhost` name (so `127.0.0.1` and `localhost` are treated alike, at creation as at send time).
 * Other names are checked at connect time.
 */
export function assertPublicLiteral(hostname: string, allowLoopback = false): void {
  const bare = hostname.replace(/^\[|\]$/g, "");
  if (isIP(bare) && !isAllowedAddress(bare, allowLoopback)) throw new BlockedAddressError(bare);
  if (!allowLoopback && isLocalhostName(bare)) throw new BlockedAddressError(bare);
}

/**
 * A DNS lookup for sockets that refuses non-public results (loopback ones too unless allowed), so
 * the check applies to the address actually connected to (no DNS-rebinding gap between check and
 * connect).
 */
function checkedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      // The callback's overloads differ for `all`; Node passes either shape through unchanged.
      const done = callback as (error: Error | null, address?: string | LookupAddress[], family?: number) => void;
      if (error) return done(error);
      const blocked = addresses.find((entry) => !isAllowedAddress(entry.address, allowLoopback));
      if (blocked) return done(new BlockedAddressError(blocked.address));
      if (options.all) return done(null, addresses);
      return done(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export const publicOnlyLookup = checkedLookup(false);
export const publicOrLoopbackLookup = checkedLookup(true);

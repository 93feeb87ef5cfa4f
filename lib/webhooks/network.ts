import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Whether an address is on the public internet. Private, loopback, link-local (cloud metadata
 * 169.254.169.254), unique-local, carrier-grade NAT, multicast and reserved ranges are not.
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === "unicast";
}

export class BlockedAddressError extends Error {
  constructor(readonly address: string) {
    super(
      `Refused to deliver to the non-public address ${address} (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows it for local development).`,
    );
    this.name = "BlockedAddressError";
  }
}

/** Throws for an IP-literal host that is not public (DNS names are checked at connect time). */
export function assertPublicLiteral(hostname: string): void {
  const bare = hostname.replace(/^\[|\]$/g, "");
  if (isIP(bare) && !isPublicAddress(bare)) throw new BlockedAddressError(bare);
}

/**
 * A DNS lookup for sockets that refuses non-public results, so the check applies to the address
 * actually connected to (no DNS-rebinding gap between check and connect).
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    // The callback's overloads differ for `all`; Node passes either shape through unchanged.
    const done = callback as (error: Error | null, address?: string | LookupAddress[], family?: number) => void;
    if (error) return done(error);
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) return done(new BlockedAddressError(blocked.address));
    if (options.all) return done(null, addresses);
    return done(null, addresses[0]!.address, addresses[0]!.family);
  });
};

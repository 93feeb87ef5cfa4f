import { config } from "@/lib/config";
import { ID_PREFIXES, ID_SUFFIX_LENGTH, type IdKind } from "@/lib/ids";

/**
 * The platform's own objects have fixed identifiers (suffix 000…0n, time part zero), so every
 * process and every start converges on the same rows with `on conflict do nothing`: no race can
 * make two platforms.
 */
function fixedId(kind: IdKind, n: number): string {
  return `${ID_PREFIXES[kind]}${config().environment}_${String(n).padStart(ID_SUFFIX_LENGTH, "0")}`;
}

export function platformIds() {
  return {
    organization: fixedId("organization", 1),
    liveAccount: fixedId("account", 1),
    sandboxAccount: fixedId("account", 2),
    /** The plan's product and price exist on the billing account only: 1 on live, 2 on sandbox. */
    product: (livemode: boolean) => fixedId("product", livemode ? 1 : 2),
    price: (livemode: boolean) => fixedId("price", livemode ? 1 : 2),
  };
}

export function isPlatformOrganization(organizationId: string): boolean {
  return organizationId === platformIds().organization;
}

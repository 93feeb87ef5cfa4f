import { describe, expect, it } from "vitest";
import { shortPath } from "@/components/logs/path";

describe("shortPath", () => {
  it("shortens each id to its prefix and last four characters, keeping the rest of the path", () => {
    expect(shortPath("/api/acc_prod_06h2czzh3jnt2wmmkmj7wzd8myd6y/tax-rates/txr_prod_06h2d00z7457530q96x87yk34x01g")).toBe("/api/acc_prod_…yd6y/tax-rates/txr_prod_…x01g");
    expect(shortPath("/api/customers/cus_06h2d00z7457530q96x87y/finalize")).toBe("/api/customers/cus_…x87y/finalize");
  });

  it("leaves paths without ids (and short or unprefixed segments) as they are", () => {
    expect(shortPath("/api/acc_1/customers")).toBe("/api/acc_1/customers");
    expect(shortPath("/api/portal-configuration")).toBe("/api/portal-configuration");
    expect(shortPath("/api/customers/cus_06h2d00z7457530q96x87y/balance_transactions")).toBe("/api/customers/cus_…x87y/balance_transactions");
  });
});

import { formatAtoms } from "@/lib/money";

export function alertsHref(accountId: string): string {
  return `/accounts/${accountId}/alerts`;
}

/** react-query keys shared by the Alerts page and the customer page's alerts card. */
export const alertQueryKeys = {
  alerts: (accountId: string) => ["alerts", accountId] as const,
  triggers: (accountId: string, customerId: string) => ["alerts", accountId, "triggers", customerId] as const,
};

type AlertLike = {
  type: "usage_threshold" | "spend_threshold" | "credit_balance";
  threshold: number | null;
  threshold_atom: number | null;
  below_atom: number | null;
  currency: string | null;
};

/** "usage ≥ 1,000", "upcoming invoice ≥ $500.00", "credit < $10.00". */
export function alertCondition(alert: AlertLike, meterName: string | undefined, locale: string | undefined): string {
  switch (alert.type) {
    case "usage_threshold":
      return `${meterName ?? "usage"} ≥ ${(alert.threshold ?? 0).toLocaleString("en")}`;
    case "spend_threshold":
      return `upcoming invoice ≥ ${formatAtoms(alert.threshold_atom ?? 0, alert.currency ?? "usd", locale)}`;
    default:
      return `credit < ${formatAtoms(alert.below_atom ?? 0, alert.currency ?? "usd", locale)}`;
  }
}

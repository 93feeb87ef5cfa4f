"use client";

import { useRouter } from "next/navigation";
import { dashboardCall } from "@/components/api-client";
import { Card } from "@/components/ui";
import { checkoutSessionActions } from "@/lib/checkout/rules";
import { paymentIntentActions } from "@/lib/payments/statuses";
import { paymentActions, refundablePayment } from "@/lib/refunds/rules";
import { ApiForm, toAtoms } from "./api-form";
import { currencyOptionsBody } from "./form-values";
import { ApiAction } from "./confirm-action";
import type { ApiObject, ObjectKind } from "./kinds";
import { TaxRateActions } from "./tax-rate-forms";

/** Archive or restore (products and prices: `active` false/true, by `setActive`, their update operation). */
function ArchiveToggle({ accountId, kind, object }: { accountId: string; kind: ObjectKind; object: ApiObject }) {
  const setActive = (active: boolean): Promise<unknown> =>
    kind.slug === "prices"
      ? dashboardCall("updatePrice", { path: { account_id: accountId, price_id: object.id }, body: { active } })
      : dashboardCall("updateProduct", { path: { account_id: accountId, product_id: object.id }, body: { active } });
  const keys = [[kind.slug, accountId]];
  return object.active ? (
    <ApiAction
      label={`Archive ${kind.noun}`}
      send={() => setActive(false)}
      invalidate={keys}
      variant="danger"
      confirm={{
        title: `Archive this ${kind.noun}?`,
        body: `New subscriptions and checkouts can no longer use it; existing ones keep it. You can restore it later.`,
        label: "Archive",
      }}
    />
  ) : (
    <ApiAction label={`Restore ${kind.noun}`} send={() => setActive(true)} invalidate={keys} />
  );
}

function AddPrice({ accountId, product }: { accountId: string; product: ApiObject }) {
  const router = useRouter();
  return (
    <Card title="Add a price">
      <ApiForm
        label="Add a price"
        submitLabel="Create price"
        operation="createPrice"
        params={{ path: { account_id: accountId } }}
        invalidate={[["prices", accountId]]}
        onDone={(price) => router.push(`/accounts/${accountId}/prices/${encodeURIComponent(price.id)}`)}
        fields={[
          { name: "unit_amount_atom", label: "Amount", kind: "money", required: true, hint: "e.g. 12.50 for $12.50", currency: { field: "currency" } },
          { name: "currency", label: "Currency", initial: "usd", required: true },
          {
            name: "currency_options",
            label: "Other currencies (optional)",
            hint: "e.g. eur 11.50; jpy 1600: what customers billed in each pay",
            errorFields: ["currency_options"],
          },
          {
            name: "interval",
            label: "Billing",
            kind: "select",
            errorFields: ["type", "recurring", "recurring.interval"],
            options: [
              { value: "month", label: "Monthly" },
              { value: "year", label: "Yearly" },
              { value: "week", label: "Weekly" },
              { value: "day", label: "Daily" },
              { value: "one_time", label: "One time" },
            ],
          },
          { name: "nickname", label: "Nickname (optional)" },
        ]}
        toBody={(values, { locale }) => ({
          product: product.id,
          currency: values.currency,
          unit_amount_atom: toAtoms(values.unit_amount_atom ?? "", values.currency ?? "usd", locale),
          ...currencyOptionsBody(values.currency_options ?? "", "unit_amount_atom", locale),
          ...(values.interval === "one_time" ? { type: "one_time" } : { type: "recurring", recurring: { interval: values.interval } }),
          ...(values.nickname ? { nickname: values.nickname } : {}),
        })}
      />
    </Card>
  );
}

/**
 * A per-unit price's "Add currencies": more currencies it bills in, by the rule of those given at
 * creation (a currency it already bills in is the API's 422, shown beside the field). A tiered
 * price's options need their tiers: through the API.
 */
function AddCurrencies({ accountId, price }: { accountId: string; price: ApiObject }) {
  if (price.billing_scheme !== "per_unit") return null;
  return (
    <Card title="Add currencies">
      <ApiForm
        label="Add currencies"
        submitLabel="Add currencies"
        operation="updatePrice"
        params={{ path: { account_id: accountId, price_id: price.id } }}
        invalidate={[["prices", accountId]]}
        fields={[
          {
            name: "currency_options",
            label: "Currencies to add",
            required: true,
            hint: "e.g. gbp 16.00; chf 19.50: what customers billed in each pay. A currency's amount is fixed once set.",
            errorFields: ["currency_options"],
          },
        ]}
        toBody={(values, { locale }) => currencyOptionsBody(values.currency_options ?? "", "unit_amount_atom", locale)}
      />
    </Card>
  );
}

function RefundPayment({ accountId, payment }: { accountId: string; payment: ApiObject }) {
  const router = useRouter();
  return (
    <Card title="Refund">
      <ApiForm
        label="Refund this payment"
        submitLabel="Refund"
        variant="danger"
        operation="createRefund"
        params={{ path: { account_id: accountId } }}
        invalidate={[["payments", accountId], ["refunds", accountId]]}
        confirm={{ title: "Refund this payment?", body: "The money goes back to the customer. A refund cannot be undone.", label: "Refund" }}
        onDone={(refund) => router.push(`/accounts/${accountId}/refunds/${encodeURIComponent(refund.id)}`)}
        fields={[
          { name: "amount_atom", label: "Amount (optional)", kind: "money", hint: "Empty: all that is not refunded yet", currency: String(payment.currency ?? "usd") },
          {
            name: "reason",
            label: "Reason",
            kind: "select",
            options: [
              { value: "", label: "None given" },
              { value: "requested_by_customer", label: "Requested by customer" },
              { value: "duplicate", label: "Duplicate" },
              { value: "fraudulent", label: "Fraudulent" },
            ],
          },
        ]}
        toBody={(values, { locale }) => ({
          payment: payment.id,
          ...(values.amount_atom ? { amount_atom: toAtoms(values.amount_atom, String(payment.currency ?? "usd"), locale) } : {}),
          ...(values.reason ? { reason: values.reason } : {}),
        })}
      />
    </Card>
  );
}

/** The everyday actions of a generic object's detail page, by kind and state. */
export function ObjectActions({ accountId, kind, object }: { accountId: string; kind: ObjectKind; object: ApiObject }) {
  switch (kind.slug) {
    case "products":
      return (
        <>
          <div className="flex flex-wrap gap-2">
            <ArchiveToggle accountId={accountId} kind={kind} object={object} />
          </div>
          {object.active ? <AddPrice accountId={accountId} product={object} /> : null}
        </>
      );
    case "prices":
      return (
        <>
          <div className="flex flex-wrap gap-2">
            <ArchiveToggle accountId={accountId} kind={kind} object={object} />
          </div>
          {object.active ? <AddCurrencies accountId={accountId} price={object} /> : null}
        </>
      );
    case "tax-rates":
      return <TaxRateActions accountId={accountId} rate={object} />;
    case "payments":
      // Each action shows exactly when the API accepts it: the rules its guards read (lib/<domain>/rules.ts).
      return paymentActions(refundablePayment(object)).refund ? <RefundPayment accountId={accountId} payment={object} /> : null;
    case "payment-intents":
      return paymentIntentActions({ status: String(object.status) }).cancel ? (
        <div className="flex flex-wrap gap-2">
          <ApiAction
            label="Cancel payment intent"
            send={() => dashboardCall("cancelPaymentIntent", { path: { account_id: accountId, payment_intent_id: object.id }, body: {} })}
            invalidate={[[kind.slug, accountId]]}
            variant="danger"
            confirm={{ title: "Cancel this payment intent?", body: "It can no longer be confirmed or captured.", label: "Cancel intent" }}
          />
        </div>
      ) : null;
    case "checkout-sessions":
      return checkoutSessionActions({ status: String(object.status) }).expire ? (
        <div className="flex flex-wrap gap-2">
          <ApiAction
            label="Expire session"
            send={() => dashboardCall("expireCheckoutSession", { path: { account_id: accountId, session_id: object.id }, body: {} })}
            invalidate={[[kind.slug, accountId]]}
            variant="danger"
            confirm={{ title: "Expire this checkout session?", body: "Its page stops taking payments at once.", label: "Expire" }}
          />
        </div>
      ) : null;
    default:
      return null;
  }
}

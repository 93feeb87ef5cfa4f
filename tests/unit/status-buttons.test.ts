import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { AppRouterContext, type AppRouterInstance } from "next/dist/shared/lib/app-router-context.shared-runtime";
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { CreditNote, Invoice, Subscription, SubscriptionChangeRequest } from "@/components/api-types";
import { RoleProvider } from "@/components/dashboard/role";
import { invoiceQueryKeys } from "@/components/invoices/format";
import { InvoiceActions } from "@/components/invoices/invoice-actions";
import { InvoiceCreditNotes } from "@/components/invoices/invoice-credit-notes";
import { ObjectActions } from "@/components/objects/object-actions";
import { OBJECT_KINDS } from "@/components/objects/kinds";
import { ChangePreview } from "@/components/subscriptions/change-request-form";
import { SubscriptionActions } from "@/components/subscriptions/subscription-actions";
import { CHECKOUT_STATUSES } from "@/lib/checkout/statuses";
import { checkoutSessionActions } from "@/lib/checkout/rules";
import { CREDIT_NOTE_STATUSES, CREDIT_NOTE_TYPES } from "@/lib/credit-notes/statuses";
import { creditNoteActions } from "@/lib/credit-notes/rules";
import { INVOICE_STATUSES } from "@/lib/invoices/statuses";
import { invoiceActions, invoiceFacts } from "@/lib/invoices/rules";
import { PAYMENT_INTENT_STATUSES, PAYMENT_STATUSES, paymentIntentActions } from "@/lib/payments/statuses";
import { paymentActions, refundablePayment } from "@/lib/refunds/rules";
import { CHANGE_REQUEST_STATUSES } from "@/lib/subscription-changes/statuses";
import { changeRequestActions, changeRequestFacts } from "@/lib/subscription-changes/rules";
import { SUBSCRIPTION_STATUSES } from "@/lib/subscriptions/statuses";
import { subscriptionActions, subscriptionFacts } from "@/lib/subscriptions/rules";

/*
 * The dashboard's action components show a button exactly when the rule of lib/<domain>/rules.ts
 * allows the action: rendered (react-dom/server, as an admin) for every status × the other facts
 * the rules read. tests/api/status-actions.test.ts proves the API accepts an action exactly when
 * the same rule allows it.
 */

const ACCOUNT = "acct_test";
const router = { push: () => {}, replace: () => {}, refresh: () => {}, back: () => {}, forward: () => {}, prefetch: () => {} } as unknown as AppRouterInstance;

function render(element: ReactElement, queryClient = new QueryClient()): string {
  return renderToStaticMarkup(
    createElement(
      AppRouterContext.Provider,
      { value: router },
      // RoleProvider's `children` is a required prop, so createElement (this is a .ts file) takes it as one.
      // eslint-disable-next-line react/no-children-prop
      createElement(QueryClientProvider, { client: queryClient }, createElement(RoleProvider, { role: "admin", children: element })),
    ),
  );
}

/** The labels of the rendered buttons and the names of the rendered forms. */
function controls(html: string): string[] {
  const buttons = [...html.matchAll(/<button[^>]*>(.*?)<\/button>/g)].map((match) => match[1]!.replace(/<[^>]+>/g, ""));
  const forms = [...html.matchAll(/<form[^>]*aria-label="([^"]+)"/g)].map((match) => `form: ${match[1]}`);
  return [...buttons, ...forms].sort();
}

/** The controls the rule says to show: each allowed action's labels. */
function expected(allowed: Record<string, boolean>, labels: Record<string, readonly string[]>): string[] {
  return Object.entries(labels)
    .flatMap(([action, names]) => (allowed[action] ? names : []))
    .sort();
}

const line = { id: "il_1", object: "invoice_line", description: "Seats", quantity: 3, unit_amount_atom: 1000, amount_atom: 3000, discount_atom: 0, tax_amounts: [], tax_rates: [] };

function invoice(status: string, facts: { paid: number; lines: number; creditable: number; livemode: boolean }): Invoice {
  return {
    id: "in_test",
    object: "invoice",
    status,
    livemode: facts.livemode,
    currency: "usd",
    customer: "cus_test",
    subscription: null,
    number: status === "draft" ? null : "TEST-0001",
    lines: facts.lines ? [line] : [],
    subtotal_amount_atom: 3000,
    total_amount_atom: 3000,
    due_amount_atom: 3000 - facts.paid,
    paid_amount_atom: facts.paid,
    pre_payment_credit_notes_amount_atom: 3000 - facts.creditable,
    post_payment_credit_notes_amount_atom: 0,
    total_taxes: [],
    metadata: {},
  } as unknown as Invoice;
}

const INVOICE_FACTS = [0, 500].flatMap((paid) => [0, 1].flatMap((lines) => [0, 100].flatMap((creditable) => [true, false].map((livemode) => ({ paid, lines, creditable, livemode })))));

describe("invoice actions (components/invoices/invoice-actions.tsx)", () => {
  it.each(INVOICE_STATUSES)("%s: the buttons are the rule's", (status) => {
    for (const facts of INVOICE_FACTS) {
      const subject = invoice(status, facts);
      const can = invoiceActions(invoiceFacts(subject));
      const labels = { finalize: ["Finalize"], pay: facts.livemode ? ["Mark paid out of band"] : ["Pay with sandbox card", "Mark paid out of band"], markUncollectible: ["Mark uncollectible"], void: ["Void"], send: ["Email invoice"] };
      expect(controls(render(createElement(InvoiceActions, { accountId: ACCOUNT, invoice: subject }))), `${status} ${JSON.stringify(facts)}`).toEqual(expected(can, labels));
    }
  });

  it("shows Void and Pay for an uncollectible invoice, which the API voids and takes payment for", () => {
    const shown = controls(render(createElement(InvoiceActions, { accountId: ACCOUNT, invoice: invoice("uncollectible", { paid: 0, lines: 1, creditable: 3000, livemode: false }) })));
    expect(shown).toEqual(["Email invoice", "Mark paid out of band", "Pay with sandbox card", "Void"]);
  });
});

describe("credit notes (components/invoices/invoice-credit-notes.tsx)", () => {
  const note = (status: string, type: string): CreditNote =>
    ({ id: "cn_test", object: "credit_note", number: "TEST-CN-0001", status, type, invoice: "in_test", total_amount_atom: 100, refund_amount_atom: 0, credit_amount_atom: 0, out_of_band_amount_atom: 0, created: "2026-01-01T00:00:00.000Z" }) as unknown as CreditNote;

  it.each(INVOICE_STATUSES.filter((status) => status !== "draft"))("invoice %s: Void and Issue are the rules'", (invoiceStatus) => {
    for (const status of CREDIT_NOTE_STATUSES) {
      for (const type of CREDIT_NOTE_TYPES) {
        for (const creditable of [0, 100]) {
          const subject = invoice(invoiceStatus, { paid: 0, lines: 1, creditable, livemode: false });
          const queryClient = new QueryClient();
          queryClient.setQueryData([...invoiceQueryKeys.invoice(ACCOUNT, subject.id), "credit-notes"], { items: [note(status, type)], total: 1, has_more: false });
          const shown = controls(render(createElement(InvoiceCreditNotes, { accountId: ACCOUNT, invoice: subject }), queryClient));
          const can = { ...creditNoteActions({ status, type, invoiceStatus }), issue: invoiceActions(invoiceFacts(subject)).credit };
          const names = shown.filter((control) => control === "Void" || control === "form: Issue a credit note");
          expect(names, `${status} ${type} note, creditable ${creditable}`).toEqual(expected(can, { void: ["Void"], issue: ["form: Issue a credit note"] }));
        }
      }
    }
  });

  it("hides Void on a credit note whose invoice was voided (the API answers 409)", () => {
    expect(creditNoteActions({ status: "issued", type: "pre_payment", invoiceStatus: "void" }).void).toBe(false);
  });
});

describe("subscription actions (components/subscriptions/subscription-actions.tsx)", () => {
  it.each(SUBSCRIPTION_STATUSES)("%s: the buttons are the rule's", (status) => {
    for (const cancelAtPeriodEnd of [false, true]) {
      const subject = { id: "sub_test", object: "subscription", status, cancel_at_period_end: cancelAtPeriodEnd, items: [], pending_changes: [] } as unknown as Subscription;
      const can = subscriptionActions(subscriptionFacts(subject));
      const labels = { pause: ["Pause"], resume: ["Resume"], cancelAtPeriodEnd: ["Cancel at period end"], cancelNow: ["Cancel now"] };
      expect(controls(render(createElement(SubscriptionActions, { accountId: ACCOUNT, subscription: subject }))), `${status} ${cancelAtPeriodEnd}`).toEqual(expected(can, labels));
    }
  });
});

describe("change request preview (components/subscriptions/change-request-form.tsx)", () => {
  it.each(CHANGE_REQUEST_STATUSES)("%s: Apply and Discard are the rule's", (status) => {
    for (const effective of ["now", "period_end"]) {
      for (const collected of [null, "2026-01-01T00:00:00.000Z"]) {
        const request = {
          id: "scr_test",
          status,
          effective,
          payment_collected_at: collected,
          currency: "usd",
          proration_behavior: "create_prorations",
          amount_due_now_atom: 0,
          amount_due_now_total_atom: 0,
          next_invoice_amount_atom: 1000,
          next_invoice_total_atom: 1000,
          proration_credit_atom: 0,
          last_error: null,
          balance_transaction: null,
        } as unknown as SubscriptionChangeRequest;
        const subscription = { id: "sub_test" } as unknown as Subscription;
        const shown = controls(render(createElement(ChangePreview, { accountId: ACCOUNT, subscription, request, onChange: () => {} }))).filter((name) => name !== "New change");
        const can = changeRequestActions(changeRequestFacts(request));
        expect(shown, `${status} ${effective} ${collected}`).toEqual(expected(can, { apply: [effective === "period_end" ? "Schedule" : "Apply"], cancel: ["Discard"] }));
      }
    }
  });
});

describe("generic objects' actions (components/objects/object-actions.tsx)", () => {
  const kind = (slug: string) => OBJECT_KINDS.find((candidate) => candidate.slug === slug)!;
  const shown = (slug: string, object: Record<string, unknown>) =>
    controls(render(createElement(ObjectActions, { accountId: ACCOUNT, kind: kind(slug), object: { id: "obj_test", ...object } })));

  it.each(PAYMENT_INTENT_STATUSES)("payment intent %s: Cancel is the rule's", (status) => {
    expect(shown("payment-intents", { status })).toEqual(expected(paymentIntentActions({ status }), { cancel: ["Cancel payment intent"] }));
  });

  it.each(CHECKOUT_STATUSES)("checkout session %s: Expire is the rule's", (status) => {
    expect(shown("checkout-sessions", { status })).toEqual(expected(checkoutSessionActions({ status }), { expire: ["Expire session"] }));
  });

  it.each(PAYMENT_STATUSES)("payment %s: the Refund form is the rule's", (status) => {
    for (const refunded of [0, 500, 2000]) {
      const payment = { status, currency: "usd", amount_atom: 2000, amount_refunded_atom: refunded };
      const refund = shown("payments", payment).filter((name) => name === "form: Refund this payment");
      expect(refund, `${status} ${refunded}`).toEqual(expected(paymentActions(refundablePayment(payment)), { refund: ["form: Refund this payment"] }));
    }
  });
});

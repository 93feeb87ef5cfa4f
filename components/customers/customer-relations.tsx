"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { DetailItem, Time } from "@/components/events/bits";
import { EmailList } from "@/components/emails/email-list";
import { InvoiceList } from "@/components/invoices/invoice-list";
import { ObjectLink, Truncated } from "@/components/objects/links";
import { ObjectList } from "@/components/objects/object-list";
import { SubscriptionList } from "@/components/subscriptions/subscription-list";
import { Card, ErrorBox, Loading } from "@/components/ui";

/**
 * The customer's discount, if any: read through `expand=discount` on the customer, which answers
 * null when there is none (`getCustomerDiscount` would answer 404, an error in the request log).
 */
function CustomerDiscount({ accountId, customerId }: { accountId: string; customerId: string }) {
  const query = useQuery({
    queryKey: ["customers", accountId, "one", customerId, "discount"],
    queryFn: async () => {
      const customer = await dashboardCall("getCustomer", {
        path: { account_id: accountId, customer_id: customerId },
        query: { expand: "discount" },
      });
      return customer.discount ?? null;
    },
  });
  return (
    <Card title="Discount">
      {query.isPending ? (
        <Loading what="Loading the discount" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : !query.data ? (
        <p className="text-sm text-slate-600">No discount.</p>
      ) : (
        <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-3">
          <DetailItem label="Coupon">
            <ObjectLink accountId={accountId} id={query.data.coupon.id}>
              <Truncated text={query.data.coupon.name ?? query.data.coupon.id} />
            </ObjectLink>
          </DetailItem>
          <DetailItem label="Since">
            <Time iso={query.data.start} />
          </DetailItem>
          <DetailItem label="Ends">
            <Time iso={query.data.end} />
          </DetailItem>
        </dl>
      )}
    </Card>
  );
}

/** What belongs to a customer, each in the list its kind has elsewhere, narrowed to them. */
export function CustomerRelations({ accountId, customerId }: { accountId: string; customerId: string }) {
  return (
    <>
      <SubscriptionList accountId={accountId} customer={customerId} />
      <InvoiceList accountId={accountId} customer={customerId} />
      <EmailList accountId={accountId} customer={customerId} />
      {/* Payments are listed by payment intent: the API's payments list has no customer filter. */}
      <ObjectList accountId={accountId} slug="payment-intents" scope={{ customer: customerId }} title="Payments" param="payment_" />
      <CustomerDiscount accountId={accountId} customerId={customerId} />
    </>
  );
}

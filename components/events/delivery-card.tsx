"use client";

import { useCan } from "@/components/dashboard/role";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { Button, ErrorBox, Loading, StatusBadge, Table } from "@/components/ui";
import { DeliveryStatusLabel, DetailItem as Item, Time } from "./bits";
import { isPermanentlyFailed, queryKeys } from "./format";
import type { DeliveredRequest, Delivery, DeliveryAttempt, EventFull } from "@/components/api-types";

const OUTCOME_STYLE: Record<DeliveryAttempt["outcome"], string> = { delivered: "delivered", retry: "retrying", failed: "failed" };

/**
 * One delivery of the event to one endpoint: where it stands, a manual retry, the headers its
 * latest attempt sent, and every attempt.
 */
export function DeliveryCard({
  accountId,
  eventId,
  delivery,
  request,
}: {
  accountId: string;
  eventId: string;
  delivery: Delivery;
  request: DeliveredRequest | undefined;
}) {
  const queryClient = useQueryClient();
  const titleId = `delivery-${delivery.id}`;

  const canRetry = useCan("developer");
  const retry = useApiMutation({
    call: () => dashboardCall("retryDelivery", { path: { account_id: accountId, delivery_id: delivery.id } }),
    // Show the answer at once, then refetch everything the attempt changed.
    onAnswer: (updated) =>
      queryClient.setQueryData<EventFull>(queryKeys.eventFull(accountId, eventId), (old) =>
        old ? { ...old, deliveries: old.deliveries.map((item) => (item.id === updated.id ? updated : item)) } : old,
      ),
    refresh: [queryKeys.eventFull(accountId, eventId), queryKeys.attempts(accountId, delivery.id), queryKeys.events(accountId), queryKeys.deliveryHealth(accountId)],
  });

  return (
    <article data-testid="delivery" data-delivery-id={delivery.id} aria-labelledby={titleId} className="rounded border border-slate-200 p-3">
      <div className="flex flex-wrap items-center gap-2">
        <h3 id={titleId} className="min-w-0 flex-1 break-all text-sm font-semibold">
          <Link href={`/accounts/${accountId}/webhooks/${delivery.webhook_endpoint_id}`} className="text-indigo-700 underline hover:text-indigo-900">
            {delivery.webhook_endpoint_url ?? delivery.webhook_endpoint_id}
          </Link>
        </h3>
        <DeliveryStatusLabel delivery={delivery} />
        {canRetry && isPermanentlyFailed(delivery) && (
          <Button
            variant="secondary"
            disabled={retry.isPending}
            aria-describedby={titleId}
            onClick={() => retry.mutate()}
          >
            {retry.isPending ? "Retrying…" : "Retry"}
          </Button>
        )}
      </div>

      {retry.isError && (
        <div className="mt-2">
          <MutationError mutation={retry} />
        </div>
      )}
      {/* Stays after the Retry button disappears (a successful retry), so the result is announced. */}
      <p role="status" className="mt-2 text-sm text-slate-700 empty:hidden">
        {retry.isSuccess
          ? `Retried: ${retry.data.status}${retry.data.response_status !== null ? ` (HTTP ${retry.data.response_status})` : ""}.`
          : null}
      </p>

      <dl className="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <Item label="Attempts">{delivery.attempt_count}</Item>
        <Item label="Last response status">{delivery.response_status ?? "—"}</Item>
        <Item label="Next retry"><Time iso={delivery.next_retry_at} /></Item>
        <Item label="Last attempt"><Time iso={delivery.last_attempt_at} /></Item>
        <Item label="Delivered"><Time iso={delivery.delivered_at} /></Item>
        <Item label="Delivery id">
          <span className="break-all font-mono text-xs">{delivery.id}</span>
        </Item>
        <Item label="Error" wide>
          {delivery.error ? <span className="break-words text-red-800">{delivery.error}</span> : "—"}
        </Item>
      </dl>

      {request && <RequestHeaders request={request} />}

      <h4 className="mt-4 text-sm font-semibold">Attempts log</h4>
      <AttemptsLog accountId={accountId} delivery={delivery} />
    </article>
  );
}

/** What the receiver got besides the body: every header of the latest attempt, signatures masked. */
function RequestHeaders({ request }: { request: DeliveredRequest }) {
  return (
    <details className="mt-3 text-sm" data-testid="delivered-headers">
      <summary className="cursor-pointer font-semibold">Request headers (attempt {request.attempt})</summary>
      <dl className="mt-2 grid grid-cols-1 gap-x-3 rounded bg-slate-50 p-2 font-mono text-xs sm:grid-cols-[max-content_1fr]">
        {Object.entries(request.headers).map(([name, value]) => (
          <div key={name} className="contents">
            <dt className="text-slate-600">{name}:</dt>
            <dd className="mb-1 min-w-0 break-all sm:mb-0">{value}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-1 text-xs text-slate-600">Signature values are masked; the signing secret is never shown.</p>
    </details>
  );
}

function AttemptsLog({ accountId, delivery }: { accountId: string; delivery: Delivery }) {
  const query = useQuery({
    // The count and status in the key: a new attempt (seen by the event's polling) refetches the log.
    queryKey: [...queryKeys.attempts(accountId, delivery.id), delivery.attempt_count, delivery.status],
    queryFn: () => dashboardCall("listDeliveryAttempts", { path: { account_id: accountId, delivery_id: delivery.id } }),
    placeholderData: keepPreviousData,
  });

  if (query.isPending) return <Loading what="Loading attempts" />;
  if (query.isError) return <ErrorBox error={query.error} />;
  if (query.data.length === 0) return <p className="py-2 text-sm text-slate-600">No attempts yet.</p>;

  return (
    <Table label={`Attempts of delivery ${delivery.id}`} head={["#", "Trigger", "Outcome", "Status", "Duration", "Time", "Error", "Response excerpt"]}>
      {query.data.map((attempt) => (
        <tr key={attempt.id} data-testid="delivery-attempt" className="align-top">
          <td className="px-2 py-2">{attempt.attempt_number}</td>
          <td className="px-2 py-2">{attempt.trigger}</td>
          <td className="px-2 py-2">
            <StatusBadge status={OUTCOME_STYLE[attempt.outcome]} label={attempt.outcome} />
          </td>
          <td className="px-2 py-2">{attempt.response_status ?? "—"}</td>
          <td className="whitespace-nowrap px-2 py-2">{attempt.duration_ms} ms</td>
          <td className="whitespace-nowrap px-2 py-2">
            <Time iso={attempt.created} />
          </td>
          <td className="max-w-xs px-2 py-2 break-words">{attempt.error ?? "—"}</td>
          <td className="px-2 py-2">
            {attempt.response_excerpt ? (
              // A focusable region so keyboard users can scroll a long body.
              <div
                role="region"
                tabIndex={0}
                aria-label={`Response excerpt of attempt ${attempt.attempt_number}`}
                className="max-h-40 max-w-xs overflow-auto rounded bg-slate-50 p-2"
              >
                <pre className="whitespace-pre-wrap break-all font-mono text-xs">{attempt.response_excerpt}</pre>
              </div>
            ) : (
              "—"
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}

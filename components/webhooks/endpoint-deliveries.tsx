"use client";

import { useCan } from "@/components/dashboard/role";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import type { ListEnvelope } from "@/components/api-types";
import { Pager } from "@/components/ui/pager";
import { Button, ErrorBox, Field, Loading, Table, formatTime, inputClass } from "@/components/ui";
import { IDLE_POLL_MS, POLL_MS, healthKey } from "./endpoint-health";
import { isInFlight, isPermanentlyFailed } from "./format";
import { DeliveryStatusLabel } from "@/components/events/bits";
import { DeliveryEventType } from "./delivery-event-type";
import type { Delivery, DeliveryStatus } from "@/components/api-types";

const LIMIT = 50;
const RETRY_WINDOW_MS = 7 * 24 * 3_600_000;

export function deliveriesKey(accountId: string, endpointId: string) {
  return ["webhook-deliveries", accountId, endpointId] as const;
}

export function EndpointDeliveries({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const queryClient = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [status, setStatus] = useState<DeliveryStatus | "">("");
  const endpointPath = { account_id: accountId, endpoint_id: endpointId };

  const deliveries = useQuery({
    queryKey: [...deliveriesKey(accountId, endpointId), { offset, status }],
    queryFn: () =>
      dashboardCall("listWebhookEndpointDeliveries", { path: endpointPath, query: { limit: LIMIT, offset, ...(status ? { status } : {}) } }),
    placeholderData: keepPreviousData,
    // Outcomes arrive without a reload: fast while anything shown can still change by itself.
    refetchInterval: (query) => (query.state.data?.items.some(isInFlight) ? POLL_MS : IDLE_POLL_MS),
  });

  const refresh = [deliveriesKey(accountId, endpointId), healthKey(accountId, endpointId)];

  const retryOne = useApiMutation({
    call: (delivery: Delivery) => dashboardCall("retryDelivery", { path: { account_id: accountId, delivery_id: delivery.id } }),
    // Show the attempt's outcome at once, then let the list catch up with the server.
    onAnswer: (updated) =>
      queryClient.setQueriesData<ListEnvelope<Delivery>>({ queryKey: deliveriesKey(accountId, endpointId) }, (page) =>
        page && { ...page, items: page.items.map((item) => (item.id === updated.id ? updated : item)) },
      ),
    refresh,
  });

  const canRetry = useCan("developer");
  const retryFailed = useApiMutation({
    call: () =>
      dashboardCall("retryFailedWebhookDeliveries", {
        path: endpointPath,
        body: { since: new Date(Date.now() - RETRY_WINDOW_MS).toISOString() },
      }),
    refresh,
  });

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="w-full sm:w-48">
          <Field label="Filter by status">
            <select
              className={inputClass}
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as DeliveryStatus | "");
                setOffset(0);
              }}
            >
              <option value="">All</option>
              <option value="pending">Pending</option>
              <option value="delivering">Delivering</option>
              <option value="delivered">Delivered</option>
              <option value="failed">Failed or retrying</option>
            </select>
          </Field>
        </div>
        {canRetry && (
          <Button variant="secondary" disabled={retryFailed.isPending} onClick={() => retryFailed.mutate()}>
            {retryFailed.isPending ? "Retrying…" : "Retry failed deliveries"}
          </Button>
        )}
      </div>
      <p className="text-xs text-slate-500">
        Retry failed deliveries makes one new attempt for each permanently failed delivery of the last 7 days.
      </p>
      <div aria-live="polite">
        {retryFailed.data && (
          <div role="status" className="rounded border border-slate-200 bg-slate-50 p-3 text-sm">
            <p>
              Retried {retryFailed.data.retried}: {retryFailed.data.delivered} delivered, {retryFailed.data.failed} failed
            </p>
            {retryFailed.data.has_more && <p className="text-slate-600">More failed deliveries remain: retry again.</p>}
          </div>
        )}
      </div>
      <MutationError mutation={retryFailed} />
      <MutationError mutation={retryOne} />

      {deliveries.isPending ? (
        <Loading what="Loading deliveries" />
      ) : deliveries.isError ? (
        <ErrorBox error={deliveries.error} />
      ) : (
        <>
          <Table
            label="Recent deliveries"
            head={[
              "Event",
              "Status",
              "Attempts",
              "Response",
              "Error",
              "Next retry",
              "Created",
              "Actions",
            ]}
          >
            {deliveries.data.items.length === 0 ? (
              <tr>
                <td colSpan={8} className="px-2 py-4 text-slate-500">
                  {status ? "No deliveries with this status." : "No deliveries yet. Send a test event to try the endpoint."}
                </td>
              </tr>
            ) : (
              deliveries.data.items.map((delivery) => {
                return (
                  <tr key={delivery.id}>
                    <td className="px-2 py-2">
                      <DeliveryEventType accountId={accountId} eventId={delivery.event_id} />
                    </td>
                    <td className="px-2 py-2">
                      <DeliveryStatusLabel delivery={delivery} />
                    </td>
                    <td className="px-2 py-2">{delivery.attempt_count}</td>
                    <td className="px-2 py-2">{delivery.response_status ?? "—"}</td>
                    <td className="min-w-[12rem] max-w-[20rem] break-words px-2 py-2 text-slate-600">
                      {delivery.error ?? "—"}
                    </td>
                    <td className="whitespace-nowrap px-2 py-2">{formatTime(delivery.next_retry_at)}</td>
                    <td className="whitespace-nowrap px-2 py-2">{formatTime(delivery.created)}</td>
                    <td className="px-2 py-2 text-right">
                      {canRetry && isPermanentlyFailed(delivery) && (
                        <Button
                          variant="secondary"
                          disabled={retryOne.isPending && retryOne.variables?.id === delivery.id}
                          onClick={() => retryOne.mutate(delivery)}
                        >
                          Retry
                        </Button>
                      )}
                    </td>
                  </tr>
                );
              })
            )}
          </Table>
          <Pager
            label="Delivery pages"
            offset={offset}
            limit={LIMIT}
            total={deliveries.data.total}
            hasMore={deliveries.data.has_more}
            onChange={setOffset}
          />
        </>
      )}
    </div>
  );
}

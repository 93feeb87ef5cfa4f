"use client";

import { Can } from "@/components/dashboard/role";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { DetailItem, Time } from "@/components/events/bits";
import { Button, Card, ErrorBox, Field, inputClass, Loading } from "@/components/ui";
import { DAY_MS } from "@/lib/time";

const STEPS = [
  { label: "+1 day", ms: DAY_MS },
  { label: "+1 week", ms: 7 * DAY_MS },
  { label: "+1 month", ms: 31 * DAY_MS },
];

/**
 * The sandbox account's test clock: move its time forward and every renewal, trial end, dunning
 * retry, overdue invoice and checkout expiry due on the way happens, in order.
 */
export function TestClockCard({ accountId }: { accountId: string }) {
  const queryClient = useQueryClient();
  const [to, setTo] = useState("");
  const clock = useQuery({
    queryKey: ["test-clock", accountId],
    queryFn: () => dashboardCall("getTestClock", { path: { account_id: accountId } }),
  });
  const advance = useApiMutation({
    call: (target: string) => dashboardCall("advanceTestClock", { path: { account_id: accountId }, body: { to: target } }),
    onAnswer: (state) => queryClient.setQueryData(["test-clock", accountId], state),
    // Everything time touched (subscriptions, invoices, events) may have changed.
    refresh: (queryKey) => queryKey[0] !== "test-clock",
    refreshInBackground: true,
    fields: ["to"],
  });
  const by = (ms: number) => clock.data && advance.mutate(new Date(Date.parse(clock.data.now) + ms).toISOString());

  return (
    <Card title="Test clock (sandbox)">
      {clock.isPending ? (
        <Loading what="Loading the test clock" />
      ) : clock.isError ? (
        <ErrorBox error={clock.error} />
      ) : (
        <div className="space-y-3 text-sm">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 sm:grid-cols-2">
            <DetailItem label="Account time">
              <span data-testid="clock-now">
                <Time iso={clock.data.now} />
              </span>
            </DetailItem>
            <DetailItem label="Next transition due">
              <Time iso={clock.data.next_due} />
            </DetailItem>
          </dl>
          <Can role="developer">
            <div className="flex flex-wrap gap-2">
              {STEPS.map((step) => (
                <Button key={step.label} variant="secondary" disabled={advance.isPending} onClick={() => by(step.ms)}>
                  {step.label}
                </Button>
              ))}
            </div>
            <form
              noValidate
              aria-label="Advance the test clock"
              className="grid gap-2 sm:grid-cols-[1fr_auto] sm:items-end"
              onSubmit={(event) => {
                event.preventDefault();
                if (to) advance.mutate(new Date(to).toISOString());
              }}
            >
              <Field label="Advance to" error={advance.fieldErrors.to}>
                <input type="datetime-local" className={inputClass} value={to} onChange={(event) => setTo(event.target.value)} />
              </Field>
              <Button type="submit" disabled={advance.isPending || !to}>
                Advance
              </Button>
            </form>
          </Can>
          <MutationError mutation={advance} />
          {advance.data && (
            <p role="status" className="text-slate-600">
              Advanced: {advance.data.transitions_run} transition{advance.data.transitions_run === 1 ? "" : "s"} ran.
            </p>
          )}
        </div>
      )}
    </Card>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { ApiForm } from "@/components/objects/api-form";
import { CreatePanel } from "@/components/ui";
import { meterHref, meterQueryKeys } from "./format";

// lib/meters/schema.ts's METER_AGGREGATIONS, listed here so this page does not ship zod; the API
// validates the choice (a 422 beside the field).
const AGGREGATIONS = ["sum", "count", "max", "last", "unique_count"] as const;

/** "New meter" above the list: what usage events it counts and how, then to the meter's page. */
export function CreateMeter({ accountId }: { accountId: string }) {
  const router = useRouter();
  return (
    <CreatePanel title="New meter">
      <ApiForm
        label="New meter"
        submitLabel="Create meter"
        operation="createMeter"
        params={{ path: { account_id: accountId } }}
        invalidate={[meterQueryKeys.meters(accountId)]}
        onDone={(meter) => router.push(meterHref(accountId, meter.id))}
        fields={[
          { name: "display_name", label: "Display name", required: true, hint: "As invoices print it, e.g. API calls" },
          { name: "event_name", label: "Event name", required: true, hint: "What your usage events send, e.g. api_call" },
          { name: "aggregation", label: "Aggregation", kind: "select", options: AGGREGATIONS.map((value) => ({ value, label: value.replace("_", " ") })) },
          { name: "value_key", label: "Value key (optional)", hint: "The payload key holding the value (sum, max, last)" },
        ]}
        toBody={(values) => ({
          display_name: values.display_name,
          event_name: values.event_name,
          aggregation: values.aggregation,
          ...(values.value_key ? { value_key: values.value_key } : {}),
        })}
      />
    </CreatePanel>
  );
}

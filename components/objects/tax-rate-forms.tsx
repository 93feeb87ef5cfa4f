"use client";

import { useCan } from "@/components/dashboard/role";
import { dashboardCall } from "@/components/api-client";
import { Card } from "@/components/ui";
import { ApiForm } from "./api-form";
import { ApiAction } from "./confirm-action";
import type { ApiObject } from "./labels";
import { ObjectLink } from "./links";
import { taxRateLabel } from "./names";

/** "19", "7.7" or "7,7" as a number; other text as typed, for the API's message beside the field. */
function percentOf(typed: string): number | string {
  const number = Number(typed.trim().replace(",", "."));
  return typed.trim() !== "" && Number.isFinite(number) ? number : typed;
}

const nullIfEmpty = (value: string | undefined) => (value && value.trim() ? value.trim() : null);

/** Creating a tax rate: its name, percentage, whether prices include it, and where it applies. */
export function NewTaxRateForm({ accountId }: { accountId: string }) {
  return (
    <ApiForm
      label="New tax rate"
      submitLabel="Create tax rate"
      operation="createTaxRate"
      params={{ path: { account_id: accountId } }}
      invalidate={[["tax-rates", accountId]]}
      confirmation={(rate) => (
        <>
          Tax rate created: <ObjectLink accountId={accountId} id={rate.id}>{taxRateLabel(rate)}</ObjectLink>
        </>
      )}
      fields={[
        { name: "display_name", label: "Display name", required: true, hint: "As invoices print it, e.g. USt. or VAT" },
        { name: "percentage", label: "Percentage", kind: "number", required: true, hint: "e.g. 19 or 7.7" },
        {
          name: "inclusive",
          label: "Prices",
          kind: "select",
          options: [
            { value: "false", label: "Tax is added to prices (exclusive)" },
            { value: "true", label: "Prices include the tax (inclusive)" },
          ],
        },
        { name: "country", label: "Country (optional)", hint: "Two letters, e.g. DE" },
        { name: "description", label: "Description (optional)" },
      ]}
      toBody={(values) => ({
        display_name: values.display_name,
        percentage: percentOf(values.percentage ?? ""),
        inclusive: values.inclusive === "true",
        ...(nullIfEmpty(values.country) ? { country: nullIfEmpty(values.country) } : {}),
        ...(nullIfEmpty(values.description) ? { description: nullIfEmpty(values.description) } : {}),
      })}
    />
  );
}

/**
 * A tax rate's page: edit what may change (name, description, country; the percentage and
 * inclusiveness are fixed once created), archive or restore it.
 */
export function TaxRateActions({ accountId, rate }: { accountId: string; rate: ApiObject }) {
  const allowed = useCan("admin");
  if (!allowed) return null;
  const path = { account_id: accountId, tax_rate_id: rate.id };
  const keys = [["tax-rates", accountId]];
  return (
    <>
      <div className="flex flex-wrap gap-2">
        {rate.active ? (
          <ApiAction
            label="Archive tax rate"
            send={() => dashboardCall("updateTaxRate", { path, body: { active: false } })}
            invalidate={keys}
            variant="danger"
            confirm={{
              title: "Archive this tax rate?",
              body: "New invoice lines and customers can no longer use it; where it is used, it stays. You can restore it later.",
              label: "Archive",
            }}
          />
        ) : (
          <ApiAction label="Restore tax rate" send={() => dashboardCall("updateTaxRate", { path, body: { active: true } })} invalidate={keys} />
        )}
      </div>
      <Card title="Edit tax rate">
        <ApiForm
          label="Edit tax rate"
          submitLabel="Save tax rate"
          operation="updateTaxRate"
          params={{ path }}
          invalidate={keys}
          confirmation={(saved) => <>Saved: {taxRateLabel(saved)}.</>}
          fields={[
            { name: "display_name", label: "Display name", required: true, initial: String(rate.display_name ?? "") },
            { name: "country", label: "Country", initial: typeof rate.country === "string" ? rate.country : "", hint: "Two letters; empty for none" },
            { name: "description", label: "Description", initial: typeof rate.description === "string" ? rate.description : "" },
          ]}
          toBody={(values) => ({
            display_name: values.display_name,
            country: nullIfEmpty(values.country),
            description: nullIfEmpty(values.description),
          })}
        />
      </Card>
    </>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiForm } from "@/components/objects/api-form";
import { Button, Card, CreatePanel } from "@/components/ui";
import { customerHref, customerQueryKeys } from "./format";
import type { Customer } from "@/components/api-types";

/** "New customer" above the list: email and name, then to the new customer's page. */
export function CreateCustomer({ accountId }: { accountId: string }) {
  const router = useRouter();
  return (
    <CreatePanel title="New customer">
      <ApiForm
        label="New customer"
        submitLabel="Create customer"
        operation="createCustomer"
        params={{ path: { account_id: accountId } }}
        invalidate={[customerQueryKeys.customers(accountId)]}
        onDone={(customer) => router.push(customerHref(accountId, customer.id))}
        fields={[
          { name: "email", label: "Email", kind: "email", required: true },
          { name: "name", label: "Name (optional)" },
        ]}
        toBody={(values) => ({ email: values.email, ...(values.name ? { name: values.name } : {}) })}
      />
    </CreatePanel>
  );
}

/** Edit the customer's email and name in place. */
export function EditCustomer({ accountId, customer }: { accountId: string; customer: Customer }) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Edit customer
      </Button>
    );
  }
  return (
    <Card title="Edit customer" actions={<Button variant="secondary" onClick={() => setOpen(false)}>Close</Button>}>
      <ApiForm
        label="Edit customer"
        submitLabel="Save"
        operation="updateCustomer"
        params={{ path: { account_id: accountId, customer_id: customer.id } }}
        invalidate={[customerQueryKeys.customers(accountId)]}
        onDone={() => setOpen(false)}
        fields={[
          { name: "email", label: "Email", kind: "email", required: true, initial: customer.email },
          { name: "name", label: "Name", initial: customer.name ?? "" },
        ]}
        // An emptied name clears it (null); an untouched empty one is not sent.
        toBody={(values) => ({ email: values.email, ...(values.name ? { name: values.name } : customer.name ? { name: null } : {}) })}
      />
    </Card>
  );
}

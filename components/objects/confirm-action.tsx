"use client";

import { useState, useSyncExternalStore } from "react";
import { useApiMutation } from "@/components/api-mutation";
import { noSubscription } from "@/components/auth/auth-frame";
import { useCan } from "@/components/dashboard/role";
import { Button } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";

/**
 * One button that calls one API operation (`send`, a dashboardCall typed at the call site). With
 * `confirm`, a dialog asks first (destructive steps) and shows the API's problem in place if the
 * call fails.
 */
export function ApiAction<Result>({
  label,
  send,
  invalidate,
  confirm,
  variant = "secondary",
  onDone,
}: {
  label: string;
  send: () => Promise<Result>;
  invalidate: readonly (readonly unknown[])[];
  confirm?: { title: string; body: string; label: string };
  variant?: "primary" | "secondary" | "danger";
  onDone?: (result: Result) => void;
}) {
  // Billing objects change for admins and owners only (lib/auth/roles.ts); the server checks too.
  const allowed = useCan("admin");
  const [open, setOpen] = useState(false);
  const mutation = useApiMutation({ call: send, onAnswer: () => setOpen(false), refresh: invalidate, onSuccess: onDone });
  // The page's HTML shows the button before React has hydrated it, and a click then does nothing
  // (a Pause that never paused, on a loaded machine in CI): it waits, disabled, until it can act.
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false);
  if (!allowed) return null;
  return (
    <>
      <Button
        variant={variant}
        disabled={!hydrated || mutation.isPending}
        onClick={() => {
          mutation.reset();
          if (confirm) setOpen(true);
          else mutation.mutate();
        }}
      >
        {label}
      </Button>
      {!confirm && mutation.error ? (
        <span role="alert" className="text-sm text-red-700">
          {mutation.error.message}
        </span>
      ) : null}
      {open && confirm && (
        <ConfirmDialog
          title={confirm.title}
          confirmLabel={confirm.label}
          busy={mutation.isPending}
          error={mutation.error}
          onCancel={() => setOpen(false)}
          onConfirm={() => mutation.mutate()}
        >
          {confirm.body}
        </ConfirmDialog>
      )}
    </>
  );
}

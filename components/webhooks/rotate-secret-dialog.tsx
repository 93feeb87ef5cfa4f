"use client";

import { useId, useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { useApiMutation } from "@/components/api-mutation";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import type { WebhookEndpointWithSecret } from "@/components/api-types";

const OVERLAPS = [
  { seconds: 86_400, label: "24 hours (recommended)" },
  { seconds: 3_600, label: "1 hour" },
  { seconds: 7 * 86_400, label: "7 days" },
  { seconds: 0, label: "No overlap: stop the old secret now" },
] as const;

/** Confirms a rotation and how long the old secret keeps signing beside the new one. */
export function RotateSecretDialog({
  path,
  onRotated,
  onCancel,
}: {
  /** The endpoint, as the operation's path parameters. */
  path: { account_id: string; endpoint_id: string };
  onRotated: (rotated: WebhookEndpointWithSecret) => void;
  onCancel: () => void;
}) {
  const selectId = useId();
  const [overlap, setOverlap] = useState<number>(OVERLAPS[0].seconds);
  const rotate = useApiMutation({
    call: () => dashboardCall("rotateWebhookEndpointSecret", { path, body: { overlap_seconds: overlap } }),
    onAnswer: onRotated,
  });
  return (
    <ConfirmDialog
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      busy={rotate.isPending}
      error={rotate.error}
      onConfirm={() => rotate.mutate()}
      onCancel={onCancel}
    >
      <p>A new secret signs every delivery from now on. Update your receiver with it.</p>
      <label htmlFor={selectId} className="mt-3 block font-medium text-slate-800">
        Keep the old secret signing for
      </label>
      <select
        id={selectId}
        className="mt-1 rounded border border-slate-300 px-2 py-1"
        value={overlap}
        onChange={(event) => setOverlap(Number(event.target.value))}
      >
        {OVERLAPS.map((option) => (
          <option key={option.seconds} value={option.seconds}>
            {option.label}
          </option>
        ))}
      </select>
      <p className="mt-2 text-slate-600">
        During the overlap each delivery carries a signature with each secret, so receivers verify with either.
      </p>
    </ConfirmDialog>
  );
}

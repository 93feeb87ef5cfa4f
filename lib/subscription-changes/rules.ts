/*
 * What each change-request status allows, declared once. Pure (values only): the services' 409
 * guards read it (apply.ts, schedule.ts, service.ts), and so do the dashboard's buttons
 * (components/subscriptions/change-request-form.tsx, pending-changes.tsx).
 */
import type { ChangeRequestStatus } from "./statuses";

/** The statuses each action starts from. */
export const CHANGE_REQUEST_ACTION_FROM = {
  /** Immediately: a partially applied request resumes at its first pending step. */
  apply: ["open", "partially_applied"],
  /** At the period end (`effective: period_end`). */
  schedule: ["open"],
  /** An open one whose payment was not collected yet, or a scheduled one. */
  cancel: ["open", "scheduled"],
} as const satisfies Record<string, readonly ChangeRequestStatus[]>;

export type ChangeRequestFacts = {
  status: string;
  effective: string;
  /** Its payment was collected: it can only be applied (to the end), not canceled. */
  paymentCollected: boolean;
};

const from = (action: keyof typeof CHANGE_REQUEST_ACTION_FROM, status: string) =>
  (CHANGE_REQUEST_ACTION_FROM[action] as readonly string[]).includes(status);

/** Apply (POST …/apply): at once, or scheduled for the period end, as the request's `effective` says. */
export const canApplyChangeRequest = (request: Pick<ChangeRequestFacts, "status" | "effective">): boolean =>
  request.effective === "period_end" ? from("schedule", request.status) : from("apply", request.status);

export const canCancelChangeRequest = (request: Pick<ChangeRequestFacts, "status" | "paymentCollected">): boolean =>
  request.status === "scheduled" || (from("cancel", request.status) && !request.paymentCollected);

/** Every action with whether the change request allows it: what the dashboard renders from. */
export function changeRequestActions(request: ChangeRequestFacts) {
  return { apply: canApplyChangeRequest(request), cancel: canCancelChangeRequest(request) };
}

/** The facts of the API's change-request object (the dashboard's shape). */
export const changeRequestFacts = (request: { status: string; effective: string; payment_collected_at: string | null }): ChangeRequestFacts => ({
  status: request.status,
  effective: request.effective,
  paymentCollected: request.payment_collected_at !== null,
});

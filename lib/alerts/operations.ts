import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { Alert, AlertCreateInput, AlertList, AlertListQuery, AlertTriggerList, AlertTriggerListQuery } from "./schema";

const tag = "Alerts";

export const createAlertOperation = defineOperation({
  operationId: "createAlert",
  method: "POST",
  path: "/{account_id}/alerts",
  unscopedPath: "/alerts",
  summary: "Create an alert",
  description:
    "A `usage_threshold` (a meter's usage in the customer's period ≥ `threshold`), `spend_threshold` (the customer's upcoming invoice total ≥ `threshold_atom`) or `credit_balance` (the customer's credit < `below_atom`) alert, for one `customer` or every customer. It emits `alert.triggered` once per customer and billing period, within 60 s of the change that crossed it, and `alert.resolved` when that period ends. An unknown meter or customer is a 422.",
  tag,
  access: "secret",
  permission: needs("meters", "write"),
  body: AlertCreateInput,
  response: { status: 201, description: "The alert, active.", schema: Alert },
  errors: [409, 415, 422],
});

export const listAlertsOperation = defineOperation({
  operationId: "listAlerts",
  method: "GET",
  path: "/{account_id}/alerts",
  unscopedPath: "/alerts",
  summary: "List alerts",
  description: "Newest first; filter `customer` (its own alerts, not those of every customer) or `status`.",
  tag,
  access: "secret",
  permission: needs("meters", "read"),
  query: AlertListQuery,
  response: { status: 200, description: "A page of alerts.", schema: AlertList },
});

export const getAlertOperation = defineOperation({
  operationId: "getAlert",
  method: "GET",
  path: "/{account_id}/alerts/{alert_id}",
  unscopedPath: "/alerts/{alert_id}",
  summary: "Retrieve an alert",
  tag,
  access: "secret",
  permission: needs("meters", "read"),
  response: { status: 200, description: "The alert.", schema: Alert },
  errors: [404],
});

export const archiveAlertOperation = defineOperation({
  operationId: "archiveAlert",
  method: "POST",
  path: "/{account_id}/alerts/{alert_id}/archive",
  unscopedPath: "/alerts/{alert_id}/archive",
  summary: "Archive an alert",
  description: "It is never evaluated again (as Stripe's Billing Alerts, archiving is final); its triggers still resolve when their period ends. Archiving an archived alert changes nothing.",
  tag,
  access: "secret",
  permission: needs("meters", "write"),
  response: { status: 200, description: "The alert, archived.", schema: Alert },
  errors: [404],
});

export const listAlertTriggersOperation = defineOperation({
  operationId: "listAlertTriggers",
  method: "GET",
  path: "/{account_id}/alert-triggers",
  unscopedPath: "/alert-triggers",
  summary: "List alert triggers",
  description: "Each alert that triggered for a customer in a period (the object of `alert.triggered` and `alert.resolved`), newest first; filter `customer` or `alert`.",
  tag,
  access: "secret",
  permission: needs("meters", "read"),
  query: AlertTriggerListQuery,
  response: { status: 200, description: "A page of triggers.", schema: AlertTriggerList },
});

export const alertOperations = [createAlertOperation, listAlertsOperation, getAlertOperation, archiveAlertOperation, listAlertTriggersOperation];

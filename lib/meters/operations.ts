import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { Meter, MeterCreateInput, MeterList, MeterListQuery, MeterUpdateInput } from "./schema";

const tag = "Meters";

export const listMetersOperation = defineOperation({
  operationId: "listMeters",
  method: "GET",
  path: "/{account_id}/meters",
  unscopedPath: "/meters",
  summary: "List meters",
  description: "The account's meters, active and inactive, newest first.",
  tag,
  access: "secret",
  permission: needs("meters", "read"),
  query: MeterListQuery,
  response: { status: 200, description: "A page of meters.", schema: MeterList },
});

export const createMeterOperation = defineOperation({
  operationId: "createMeter",
  method: "POST",
  path: "/{account_id}/meters",
  unscopedPath: "/meters",
  summary: "Create a meter",
  description:
    "Emits `meter.created`. `event_name` is unique among the account's active meters (409 `meter_event_name_taken`); " +
    "`aggregation` and `value_key` are immutable.",
  tag,
  access: "secret",
  permission: needs("meters", "write"),
  body: MeterCreateInput,
  response: { status: 201, description: "The created meter.", schema: Meter },
  errors: [409, 415, 422],
});

export const getMeterOperation = defineOperation({
  operationId: "getMeter",
  method: "GET",
  path: "/{account_id}/meters/{meter_id}",
  unscopedPath: "/meters/{meter_id}",
  summary: "Retrieve a meter",
  tag,
  access: "secret",
  permission: needs("meters", "read"),
  response: { status: 200, description: "The meter.", schema: Meter },
  errors: [404],
});

export const updateMeterOperation = defineOperation({
  operationId: "updateMeter",
  method: "POST",
  path: "/{account_id}/meters/{meter_id}",
  unscopedPath: "/meters/{meter_id}",
  summary: "Update a meter",
  description: "Only `display_name` changes (anything else is a 422). Emits `meter.updated` when it changed.",
  tag,
  access: "secret",
  permission: needs("meters", "write"),
  body: MeterUpdateInput,
  response: { status: 200, description: "The updated meter.", schema: Meter },
  errors: [404, 415, 422],
});

export const deactivateMeterOperation = defineOperation({
  operationId: "deactivateMeter",
  method: "POST",
  path: "/{account_id}/meters/{meter_id}/deactivate",
  unscopedPath: "/meters/{meter_id}/deactivate",
  summary: "Deactivate a meter",
  description:
    "Emits `meter.deactivated`. The meter accepts no more events (they are `invalid`) and frees its `event_name`; " +
    "usage already counted stays. Deactivating an inactive meter changes nothing.",
  tag,
  access: "secret",
  permission: needs("meters", "write"),
  response: { status: 200, description: "The meter.", schema: Meter },
  errors: [404],
});

export const reactivateMeterOperation = defineOperation({
  operationId: "reactivateMeter",
  method: "POST",
  path: "/{account_id}/meters/{meter_id}/reactivate",
  unscopedPath: "/meters/{meter_id}/reactivate",
  summary: "Reactivate a meter",
  description:
    "Emits `meter.reactivated`. 409 `meter_event_name_taken` when another active meter took its `event_name` meanwhile.",
  tag,
  access: "secret",
  permission: needs("meters", "write"),
  response: { status: 200, description: "The meter.", schema: Meter },
  errors: [404, 409],
});

export const meterOperations = [
  listMetersOperation,
  createMeterOperation,
  getMeterOperation,
  updateMeterOperation,
  deactivateMeterOperation,
  reactivateMeterOperation,
];

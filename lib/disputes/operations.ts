import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { Dispute, DisputeList, DisputeListQuery } from "./schema";

const tag = "Disputes";

export const listDisputesOperation = defineOperation({
  operationId: "listDisputes",
  method: "GET",
  path: "/{account_id}/disputes",
  unscopedPath: "/disputes",
  summary: "List disputes",
  description: "Newest first; filter `payment` or `payment_intent`. Disputes are made by the connected processor's webhooks (`charge.dispute.*`), never through the API.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  query: DisputeListQuery,
  response: { status: 200, description: "A page of disputes.", schema: DisputeList },
});

export const getDisputeOperation = defineOperation({
  operationId: "getDispute",
  method: "GET",
  path: "/{account_id}/disputes/{dispute_id}",
  unscopedPath: "/disputes/{dispute_id}",
  summary: "Retrieve a dispute",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  response: { status: 200, description: "The dispute.", schema: Dispute },
  errors: [404],
});

export const disputeOperations = [listDisputesOperation, getDisputeOperation];

import { defineOperation } from "@/lib/api/operation";
import { PortalConfiguration, PortalConfigurationUpdateInput } from "./schema";

const tag = "Customer portal";

export const getPortalConfigurationOperation = defineOperation({
  operationId: "getPortalConfiguration",
  method: "GET",
  path: "/{account_id}/portal-configuration",
  unscopedPath: "/portal-configuration",
  summary: "Retrieve the customer portal's configuration",
  description: "The account's configuration, or the defaults (`updated: null`) until it saves one.",
  tag,
  access: "secret",
  response: { status: 200, description: "The configuration.", schema: PortalConfiguration },
});

export const updatePortalConfigurationOperation = defineOperation({
  operationId: "updatePortalConfiguration",
  method: "POST",
  path: "/{account_id}/portal-configuration",
  unscopedPath: "/portal-configuration",
  summary: "Update the customer portal's configuration",
  description:
    "Changes the sections and fields named; the others keep their values. The prices a customer may switch between must be " +
    "the account's active recurring prices; quantity `minimum` ≤ `maximum`; the logo an `https:` URL. Emits " +
    "`portal_configuration.updated` when anything changed.",
  tag,
  access: "secret",
  body: PortalConfigurationUpdateInput,
  response: { status: 200, description: "The configuration.", schema: PortalConfiguration },
  errors: [415, 422],
});

export const portalOperations = [getPortalConfigurationOperation, updatePortalConfigurationOperation];

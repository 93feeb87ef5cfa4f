import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { PortalConfiguration, PortalConfigurationUpdateInput, PortalSession, PortalSessionCreateInput, PortalSignInAnswer, PortalSignInInput } from "./schema";

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
  permission: needs("settings", "read"),
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
  permission: needs("settings", "write"),
  body: PortalConfigurationUpdateInput,
  response: { status: 200, description: "The configuration.", schema: PortalConfiguration },
  errors: [415, 422],
});

export const createPortalSessionOperation = defineOperation({
  operationId: "createPortalSession",
  method: "POST",
  path: "/{account_id}/portal-sessions",
  unscopedPath: "/portal-sessions",
  summary: "Create a customer portal session",
  description:
    "A single-use link (`url`) to the hosted portal for one customer, valid for one hour: opening it starts a portal session in " +
    "that browser (an HttpOnly cookie scoped to `/portal`, ended after 30 minutes idle); opened again, or after `expires_at`, it " +
    "shows a page linking back to `return_url` (or the configuration's `default_return_url`). `flow` opens the portal on one " +
    "task. Secret token only: give the link to the signed-in customer, never publish it. 422 for a customer or subscription " +
    "that is not the account's (or not the customer's).",
  tag,
  access: "secret",
  permission: needs("portal_sessions", "write"),
  body: PortalSessionCreateInput,
  response: { status: 201, description: "The session, with its link (answered only here).", schema: PortalSession },
  errors: [415, 422],
});

export const requestPortalSignInOperation = defineOperation({
  operationId: "requestPortalSignIn",
  method: "POST",
  path: "/portal-sign-in/{account}",
  summary: "Email a customer a portal sign-in link",
  description:
    "The account's portal page (`/portal/sign-in/{account}`) posts here: a customer of the account with this email (case-insensitive) " +
    "is emailed a single-use portal link valid for one hour (the `portal_link` email). The answer is the same 200 whether or not " +
    "the email is a customer's, and an unknown email sends nothing. Rate limited per client address and per email (429).",
  tag,
  access: "public",
  body: PortalSignInInput,
  response: { status: 200, description: "The request was taken (a link was sent if the email is a customer's).", schema: PortalSignInAnswer },
  errors: [404, 415, 422],
});

export const portalOperations = [getPortalConfigurationOperation, updatePortalConfigurationOperation, createPortalSessionOperation, requestPortalSignInOperation];

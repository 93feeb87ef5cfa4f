import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { AccountSettings, AccountSettingsUpdateInput } from "./schema";

const tag = "Account settings";

export const getAccountSettingsOperation = defineOperation({
  operationId: "getAccountSettings",
  method: "GET",
  path: "/{account_id}/account-settings",
  unscopedPath: "/account-settings",
  summary: "Retrieve the account settings",
  description: "The seller's details printed on invoices, the invoice number prefix and the default invoice language.",
  tag,
  access: "secret",
  permission: needs("settings", "read"),
  response: { status: 200, description: "The account settings.", schema: AccountSettings },
});

export const updateAccountSettingsOperation = defineOperation({
  operationId: "updateAccountSettings",
  method: "POST",
  path: "/{account_id}/account-settings",
  unscopedPath: "/account-settings",
  summary: "Update the account settings",
  description:
    "Sets the given settings; absent ones are kept, null clears one. Emits `account.settings_updated` when anything changed. Numbers already given to invoices keep their prefix.",
  tag,
  access: "secret",
  permission: needs("settings", "write"),
  body: AccountSettingsUpdateInput,
  response: { status: 200, description: "The updated account settings.", schema: AccountSettings },
  errors: [415, 422],
});

export const accountSettingsOperations = [getAccountSettingsOperation, updateAccountSettingsOperation];

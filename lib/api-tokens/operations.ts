import { defineOperation } from "@/lib/api/operation";
import { ApiToken, ApiTokenCreateInput, ApiTokenList, ApiTokenListQuery, ApiTokenWithSecret } from "./schema";

const tag = "API tokens (dashboard)";
const description = "Dashboard sessions only: API tokens cannot manage API tokens.";

export const listApiTokensOperation = defineOperation({
  operationId: "listApiTokens",
  method: "GET",
  path: "/{account_id}/api-tokens",
  summary: "List the account's API tokens",
  description,
  tag,
  access: "dashboard",
  query: ApiTokenListQuery,
  response: { status: 200, description: "A page of tokens, newest first.", schema: ApiTokenList },
});

export const createApiTokenOperation = defineOperation({
  operationId: "createApiToken",
  method: "POST",
  path: "/{account_id}/api-tokens",
  summary: "Create an API token",
  description: `${description} The full token is shown only in this answer.`,
  tag,
  access: "dashboard",
  role: "developer",
  body: ApiTokenCreateInput,
  response: { status: 201, description: "The token, with its full value.", schema: ApiTokenWithSecret },
  errors: [415, 422],
});

export const revokeApiTokenOperation = defineOperation({
  operationId: "revokeApiToken",
  method: "POST",
  path: "/{account_id}/api-tokens/{token_id}/revoke",
  summary: "Revoke an API token",
  description: `${description} The token's next call answers 401.`,
  tag,
  access: "dashboard",
  role: "developer",
  response: { status: 200, description: "The revoked token.", schema: ApiToken },
  errors: [404],
});

export const apiTokenOperations = [listApiTokensOperation, createApiTokenOperation, revokeApiTokenOperation];

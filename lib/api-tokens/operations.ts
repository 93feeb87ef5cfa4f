import { defineOperation } from "@/lib/api/operation";
import {
  ApiToken,
  ApiTokenCreateInput,
  ApiTokenList,
  ApiTokenListQuery,
  ApiTokenRollInput,
  ApiTokenWithSecret,
} from "./schema";

const tag = "API tokens (dashboard)";
const description = "Dashboard sessions only: API tokens cannot manage API tokens.";

export const listApiTokensOperation = defineOperation({
  operationId: "listApiTokens",
  method: "GET",
  path: "/{account_id}/api-tokens",
  summary: "List the account's API tokens",
  description: `${description} Each with its last use (time and client address, recorded at most once a minute).`,
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
  description: `${description} The full token is shown only in this answer. \`kind: restricted\` makes a restricted key (\`rk_…\`) that may call only what its \`permissions\` name (docs/api.md, "Restricted keys"); any kind may have an \`expires_at\` and \`allowed_ips\`. A member can mint only a key whose operations their role could call.`,
  tag,
  access: "dashboard",
  role: "developer",
  body: ApiTokenCreateInput,
  response: { status: 201, description: "The token, with its full value.", schema: ApiTokenWithSecret },
  errors: [415, 422],
});

export const rollApiTokenOperation = defineOperation({
  operationId: "rollApiToken",
  method: "POST",
  path: "/{account_id}/api-tokens/{token_id}/roll",
  summary: "Roll an API token's secret",
  description: `${description} A new secret for the same token (shown only in this answer); the previous secret keeps working for \`overlap_seconds\` (default one day, at most 7 days; 0 ends it at once), then answers 401 naming when it stopped. Emits \`api_key.rolled\`. 409 for a revoked token.`,
  tag,
  access: "dashboard",
  role: "developer",
  body: ApiTokenRollInput,
  response: { status: 200, description: "The token, with its new full value.", schema: ApiTokenWithSecret },
  errors: [404, 409, 415, 422],
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

export const apiTokenOperations = [listApiTokensOperation, createApiTokenOperation, rollApiTokenOperation, revokeApiTokenOperation];

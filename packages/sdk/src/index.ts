export { Billing, type BillingArgs, type BillingInput, type BillingOptions, type OperationMethods } from "./client.ts";
export { BillingError, isBillingError } from "./errors.ts";
export { createCall, type Call, type CallInput, type CallOptions, type CallOutput, type CallResult, type OperationId, type Problem } from "./call.ts";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.ts";
export {
  verify as verifyWebhook,
  webhooks,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
} from "./webhooks.ts";
export { OPERATIONS } from "./generated/operations.ts";
export type { components, operations, paths } from "./generated/schema.ts";

export { Billing, type BillingArgs, type BillingInput, type BillingOptions, type OperationMethods } from "./client.js";
export { BillingError, isBillingError } from "./errors.js";
export { createCall, type Call, type CallInput, type CallOptions, type CallOutput, type CallResult, type OperationId, type Problem } from "./call.js";
export { DEFAULT_RETRY, type RetryOptions } from "./retry.js";
export {
  verify as verifyWebhook,
  webhooks,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
} from "./webhooks.js";
export { OPERATIONS } from "./generated/operations.js";
export type { components, operations, paths } from "./generated/schema.js";

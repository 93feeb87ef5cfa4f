export * from "./organizations";
export * from "./accounts";
export * from "./customers";
export * from "./events";
export * from "./webhooks";
export * from "./catalog";
export * from "./coupons";
export * from "./idempotency";

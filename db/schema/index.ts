export * from "./organizations";
export * from "./accounts";
export * from "./customers";
export * from "./events";
export * from "./webhooks";

import pino, { type Logger } from "pino";
import { logLevel } from "@/lib/config";

/**
 * The service's structured log (JSON lines on stdout). Errors are logged through `safeError`, never
 * as the raw object: a database error carries its SQL parameters (customers' emails, token hashes)
 * in its message and properties. The redaction paths are a second line of defence for fields that
 * must never appear, whoever logs them.
 */
const LOGGER = Symbol.for("billing-service.logger");

/** Fields censored wherever they appear at the top level or one level down. */
export const LOG_REDACTION = {
  paths: [
    "params",
    "*.params",
    "token",
    "*.token",
    "secret",
    "*.secret",
    "password",
    "*.password",
    "email",
    "*.email",
    "authorization",
    "*.authorization",
    "cookie",
    "*.cookie",
    "headers.authorization",
    "headers.cookie",
  ],
  censor: "[redacted]",
};

export function log(): Logger {
  const store = globalThis as typeof globalThis & { [LOGGER]?: Logger };
  store[LOGGER] ??= pino({
    level: logLevel(),
    base: { service: "billing-service" },
    redact: LOG_REDACTION,
  });
  return store[LOGGER];
}

export type SafeError = { type: string; code?: string; message: string; stack?: string };

/**
 * What of an error may be logged: its class, its SQLSTATE or system code, a message without the
 * parameters a failed query lists, and the stack's frames (not its first line, which repeats the
 * message). A database error's own message (the cause) says what went wrong without the values.
 */
export function safeError(error: unknown): SafeError {
  if (!(error instanceof Error)) return { type: typeof error, message: "A non-Error value was thrown." };
  const cause = (error as { cause?: unknown }).cause;
  const failedQuery = error.name === "DrizzleQueryError" || error.message.startsWith("Failed query:");
  const source = failedQuery && cause instanceof Error ? cause : error;
  const code = (source as { code?: unknown }).code;
  const query = failedQuery ? (error as { query?: unknown }).query : undefined;
  return {
    type: source.name,
    ...(typeof code === "string" ? { code } : {}),
    message: typeof query === "string" ? `${source.message} (in: ${query.slice(0, 300)})` : stripParams(source.message),
    // Only the frames: the lines before them repeat the message (a failed query's parameters too).
    stack: error.stack
      ?.split("\n")
      .filter((line) => line.trimStart().startsWith("at "))
      .join("\n"),
  };
}

function stripParams(message: string): string {
  const at = message.indexOf("\nparams:");
  return at === -1 ? message : message.slice(0, at);
}

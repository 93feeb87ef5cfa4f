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
    "card",
    "*.card",
    "cvc",
    "*.cvc",
  ],
  censor: "[redacted]",
};

/**
 * The field names of LOG_REDACTION, for redacting a stored value at any depth (the request log's
 * bodies, headers and query strings: lib/request-recorder/redact.ts). One list: a name added above is
 * censored in the logs and in every stored request at once. A key matches when it is one of these
 * names or contains one as a word (`new_password`, `client_secret`, `signing_secret`).
 */
export const REDACTED_FIELD_NAMES: readonly string[] = [
  ...new Set(LOG_REDACTION.paths.map((path) => path.split(".").at(-1)!).filter((name) => name !== "*")),
];

export function isRedactedFieldName(key: string): boolean {
  const words = key.toLowerCase().split(/[^a-z0-9]+/);
  return REDACTED_FIELD_NAMES.some((name) => words.includes(name));
}

/**
 * Secret values recognised wherever they appear, whatever field holds them: API tokens
 * (`st_…`, `pt_…`, and restricted keys `rk_…`), endpoint signing secrets (`whsec_…`),
 * bearer credentials, invitation tokens (`inv_` and 32 base32 characters: an invitation's id has its
 * environment and another `_` after the prefix, so ids never match), and the capability links'
 * tokens wherever their path shows them (`/portal/start/…`, `/invite/…`, `/invoice/…`,
 * `/hosted-invoices/…`: the token is censored, the path kept). Card numbers are handled apart (Luhn).
 */
const SECRET_VALUE_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:st|pt|rk)_[A-Za-z0-9_]{6,}/g, LOG_REDACTION.censor],
  [/whsec_[A-Za-z0-9+/=_-]{6,}/g, LOG_REDACTION.censor],
  // A credential after `Bearer`, not the placeholder of a message that explains the scheme (`Bearer <token>`).
  [/\bBearer\s+(?!<[A-Za-z_ -]+>)\S+/gi, LOG_REDACTION.censor],
  [/\binv_[0-9a-z]{32}(?![0-9a-z])/gi, LOG_REDACTION.censor],
  [/((?<![A-Za-z0-9_-])(?:portal\/start|invite|invoice|hosted-invoices)\/)(?!\[redacted\])[^/?#\s"'&<>\\]+/gi, `$1${LOG_REDACTION.censor}`],
  // A secret field written as text (`password=…`, `"client_secret": "…"`) in a body that is not JSON.
  // Only `name=value` or a quoted `"name": value`: prose such as "No such API token: 'key_…'" is kept.
  [/\b([A-Za-z0-9_-]*(?:password|passwd|secret|token|cvc))(\s*=\s*["']?|["']\s*:\s*["']?)(?!\[redacted)[^\s&"',;}]+/gi, `$1$2${LOG_REDACTION.censor}`],
];
const CARD_NUMBER = /\b\d(?:[ -]?\d){12,18}\b/g;
const PERCENT_ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function censored(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(CARD_NUMBER, (match) => (passesLuhn(match.replace(/[ -]/g, "")) ? LOG_REDACTION.censor : match));
}

/** Percent-escapes decoded where they form UTF-8, left as they are elsewhere (never throws). */
function percentDecoded(text: string): string {
  return text.replace(PERCENT_ESCAPES, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * A text with every secret value of SECRET_VALUE_PATTERNS and every card number censored: the one
 * scanner for everything stored or shown from a request or a response (docs/security.md, "What is
 * stored"). A secret hidden behind percent-encoding (`whsec%5F…`, `st%5Fprod%5F…`, encoded twice
 * too) is found in the decoded text; a text that held one is kept decoded, with it censored.
 */
export function redactText(text: string): string {
  const plain = censored(text);
  let decoded = plain;
  for (let round = 0; round < 3 && decoded.includes("%"); round++) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
    const scanned = censored(decoded);
    if (scanned !== decoded) return scanned;
  }
  return plain;
}

/** True when the text holds a secret the scanner recognises. */
export function holdsSecret(text: string): boolean {
  return redactText(text) !== text;
}

/** A JSON value with the redacted fields censored at any depth and secret values censored in every string. */
export function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  // A card number sent as a JSON number.
  if (typeof value === "number" && Number.isInteger(value) && redactText(String(value)) !== String(value)) return LOG_REDACTION.censor;
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, isRedactedFieldName(key) ? LOG_REDACTION.censor : redactValue(inner)]),
    );
  }
  return value;
}

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

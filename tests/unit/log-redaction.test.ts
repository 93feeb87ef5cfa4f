import { Writable } from "node:stream";
import { DrizzleQueryError } from "drizzle-orm/errors";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { REDACTED_SECRET, redactSecrets, storedKey } from "@/lib/idempotency/service";
import { LOG_REDACTION, redactText, safeError } from "@/lib/log";

describe("what may be logged of an error", () => {
  it("keeps a failed query's text and the database's message, never its parameters", () => {
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "users_email_unique"'), { code: "23505" });
    const error = new DrizzleQueryError('insert into "users" ("email", "password_hash") values ($1, $2)', ["jenny@example.com", "scrypt$secret"], cause);
    const safe = safeError(error);
    expect(safe).toMatchObject({ code: "23505", message: expect.stringContaining("duplicate key value") });
    expect(safe.message).toContain('insert into "users"');
    expect(JSON.stringify(safe)).not.toContain("jenny@example.com");
    expect(JSON.stringify(safe)).not.toContain("scrypt$secret");
  });

  it("censors tokens, secrets, emails and credentials wherever pino is given them", () => {
    let line = "";
    const sink = new Writable({ write: (chunk, _encoding, done) => ((line += chunk.toString()), done()) });
    const logger = pino({ redact: LOG_REDACTION }, sink);
    logger.error({ token: "st_prod_abc", request: { email: "a@example.com", authorization: "Bearer st_prod_abc" }, err: { params: ["x"] } }, "failure");
    expect(line).not.toContain("st_prod_abc");
    expect(line).not.toContain("a@example.com");
    expect(line).toContain("[redacted]");
  });
});

describe("idempotent replays", () => {
  it("store API tokens and signing secrets redacted, the rest unchanged", () => {
    const body = JSON.stringify({ id: "tok_1", object: "api_token", token: "st_prod_0123", display: "st_prod_…0123" });
    expect(JSON.parse(redactSecrets(body))).toEqual({ id: "tok_1", object: "api_token", token: REDACTED_SECRET, display: "st_prod_…0123" });
    expect(JSON.parse(redactSecrets(JSON.stringify({ id: "we_1", secret: "whsec_x" }))).secret).toBe(REDACTED_SECRET);
    const plain = JSON.stringify({ id: "cus_1", email: "a@example.com" });
    expect(redactSecrets(plain)).toBe(plain);
  });
});

describe("the one scanner (redactText)", () => {
  const token = "st_prod_0123456789abcdefghjkmnpqrstvwxyz";
  it.each([
    ["an API token in a path", `/api/customers/${token}`, "/api/customers/[redacted]"],
    ["a percent-encoded token", `/api/customers/st%5Fprod%5F0123456789abcdefghjkmnpqrstvwxyz`, "/api/customers/[redacted]"],
    ["a percent-encoded signing secret", "/api/customers/whsec%5FAbCdEf0123456789", "/api/customers/[redacted]"],
    ["an encoded link", "/api/customers/portal%2Fstart%2FAbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde", "/api/customers/portal/start/[redacted]"],
    ["an invitation token", `inv_${"a".repeat(32)}`, "[redacted]"],
    ["an invitation link", `https://x.example/invite/inv_${"b".repeat(32)}`, "https://x.example/invite/[redacted]"],
    ["a hosted invoice link", "https://x.example/invoice/AbCdEf_123-xyz?x=1", "https://x.example/invoice/[redacted]?x=1"],
    ["a password written as text", "name=x&password=hunter22&other=1", "name=x&password=[redacted]&other=1"],
    ["a card number", "card 4242 4242 4242 4242 here", "card [redacted] here"],
  ])("censors %s", (_what, text, expected) => {
    expect(redactText(text)).toBe(expected);
  });

  it.each([
    ["an invitation's id", "inv_prod_01jd0000000000000000000000"],
    ["a token's display", "st_prod_…0123"],
    ["an ordinary path", "/api/acc_prod_01jd00000000000000000000000/invoices/in_prod_01jd00000000000000000000000"],
    ["percent-encoded plain text", "/api/customers/a%20b"],
  ])("keeps %s", (_what, text) => {
    expect(redactText(text)).toBe(text);
  });
});

describe("stored idempotent answers", () => {
  it("keep no portal link, and scan every string", () => {
    const body = JSON.stringify({ object: "portal_session", id: "bps_1", url: "https://x.example/portal/start/AbC" });
    expect(JSON.parse(redactSecrets(body)).url).toBe(REDACTED_SECRET);
    const problem = JSON.stringify({ status: 422, detail: "No such customer: 'st_prod_0123456789abcdef'." });
    expect(JSON.parse(redactSecrets(problem)).detail).toBe("No such customer: '[redacted]'.");
  });

  it("store a key that holds a secret as its SHA-256, any other as sent", () => {
    expect(storedKey("order-42")).toBe("order-42");
    expect(storedKey("st_prod_0123456789abcdef")).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("prose is not a secret field", () => {
  it("keeps a message that names a token by its id", () => {
    expect(redactText("No such API token: 'key_prod_01jd00000000000000000000000'.")).toBe("No such API token: 'key_prod_01jd00000000000000000000000'.");
    expect(redactText('{"client_secret": "abc123"}')).toBe('{"client_secret": "[redacted]"}');
  });
});

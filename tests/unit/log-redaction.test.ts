import { Writable } from "node:stream";
import { DrizzleQueryError } from "drizzle-orm/errors";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { REDACTED_SECRET, redactSecrets } from "@/lib/idempotency/service";
import { LOG_REDACTION, safeError } from "@/lib/log";

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

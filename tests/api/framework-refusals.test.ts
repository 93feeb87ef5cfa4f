import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signUp } from "@/lib/teams/users";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";
import { signInWithPassword, authUrl } from "../helpers/sign-in";

const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";")[0]!);

function actionId(exportedName: string): string {
  const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, ".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, { exportedName?: string }>;
  };
  const id = Object.entries(manifest.node).find(([, action]) => action.exportedName === exportedName)?.[0];
  if (!id) throw new Error(`No server action ${exportedName} in the build`);
  return id;
}

/**
 * A request written byte for byte (fetch refuses some of these headers, or normalizes them), its
 * `body` in the same write as the head: one packet on loopback, as a browser often sends a small POST.
 */
async function raw(baseUrl: string, head: string, body = ""): Promise<{ status: number; headers: string; body: string }> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname, () => socket.write(`${head}Host: ${base.host}\r\nConnection: close\r\n\r\n${body}`));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("error", reject);
    // Silent for a minute: a request that never reached an answer (far beyond a busy machine's pace).
    socket.setTimeout(60_000, () => {
      socket.destroy();
      reject(new Error(`No answer in 60 s to: ${head.split("\r\n")[0]}`));
    });
    socket.on("end", () => {
      const [headers = "", ...rest] = text.split("\r\n\r\n");
      resolve({ status: Number(headers.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
  });
}

/**
 * What Next.js and next-auth refuse by themselves (a cross-site server action, an unsafe callback
 * URL) is a 4xx with a problem body under /api, and the process logs JSON only (pino), never
 * Next's or next-auth's multi-line text.
 */
describe("framework refusals", () => {
  let app: RunningApp;
  let printedBefore = 0;
  beforeAll(async () => {
    // Its own process: the test reads everything it prints.
    app = await startApp({ DATABASE_URL: inject("databaseUrl") });
    await fetch(`${app.baseUrl}/signup`);
    printedBefore = app.output().length;
  });
  afterAll(async () => {
    await app?.stop();
  });

  function expectJsonLogsOnly(): void {
    const lines = app.output().slice(printedBefore).split("\n").filter((line) => line.trim() !== "");
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  }

  it("refuses a cross-site server action with 403, whether called as a fetch or as a plain form", async () => {
    for (const origin of ["https://evil.example", "null", "not a url"]) {
      const fetched = await fetch(`${app.baseUrl}/signup`, {
        method: "POST",
        redirect: "manual",
        headers: { "Next-Action": actionId("signUpAction"), "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", Origin: origin },
        body: JSON.stringify([{ name: "x", company: "x", email: `csrf-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery staple" }]),
      });
      expect(fetched.status, `${origin}: ${await fetched.text()}`).toBe(403);
      expect(fetched.headers.get("x-content-type-options")).toBe("nosniff");
    }
    const form = new FormData();
    form.set(`$ACTION_ID_${actionId("signUpAction")}`, "");
    const posted = await fetch(`${app.baseUrl}/signup`, { method: "POST", redirect: "manual", headers: { Origin: "https://evil.example" }, body: form });
    expect(posted.status).toBe(403);
    expectJsonLogsOnly();
  });

  it("answers an unsafe callback URL with a 400 problem, not next-auth's 500", async () => {
    for (const url of [
      "/api/auth/signin?callbackUrl=javascript:alert(1)",
      "/api/auth/signin/credentials?callbackUrl=javascript:alert(1)",
      "/api/auth/session?callbackUrl=data:text/html,x",
    ]) {
      const response = await fetch(`${app.baseUrl}${url}`, { redirect: "manual" });
      expect(response.status, url).toBe(400);
      expect(response.headers.get("content-type"), url).toBe("application/problem+json");
      expect(await response.json(), url).toMatchObject({ status: 400, detail: expect.stringMatching(/callbackUrl/), request_id: expect.stringMatching(/^req_/) });
    }
    // The same URL kept in next-auth's callback cookie.
    const cookie = await fetch(authUrl(app.baseUrl, "/signin"), { redirect: "manual", headers: { Cookie: "next-auth.callback-url=javascript:alert(1)" } });
    expect(cookie.status).toBe(400);
    // A safe one still works.
    const safe = await fetch(authUrl(app.baseUrl, "/signin?callbackUrl=%2Faccounts"), { redirect: "manual" });
    expect(safe.status).toBeLessThan(400);
    expectJsonLogsOnly();
  });

  it("answers {} for the session after sign-out", async () => {
    const email = `out-${randomBytes(4).toString("hex")}@example.com`;
    await signUp({ name: "Out", company: "Out Co", email, password: "correct horse battery staple" });
    const session = await signInWithPassword(app.baseUrl, email, "correct horse battery staple");
    const before = (await (await fetch(authUrl(app.baseUrl, "/session"), { headers: { Cookie: session } })).json()) as { user?: { id?: string } };
    expect(before.user?.id).toMatch(/^user_/);

    const csrf = await fetch(authUrl(app.baseUrl, "/csrf"), { headers: { Cookie: session } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const out = await fetch(authUrl(app.baseUrl, "/signout"), {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [session, ...cookiesOf(csrf)].join("; ") },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    });
    expect(out.status).toBeLessThan(400);

    const after = await fetch(authUrl(app.baseUrl, "/session"), { headers: { Cookie: session } });
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({});
    expectJsonLogsOnly();
  });

  it("hands a capability page's body that came with its headers to the page: a checkout's Pay on a fresh server is answered", async () => {
    // The first capability page this server sees: its count (the rate limit's module, then the
    // database) is awaited while the body is already in. The guard once held the body only after
    // that await, waited for an end already pushed, and the Pay never reached Next.js.
    const pay = JSON.stringify(["cs_test_unknown", "ada@example.com"]);
    const head = (length: number) =>
      `POST /checkout/cs_test_unknown HTTP/1.1\r\nNext-Action: ${actionId("startCheckoutPaymentAction")}\r\nContent-Type: text/plain;charset=UTF-8\r\nAccept: text/x-component\r\nOrigin: ${app.baseUrl}\r\nContent-Length: ${length}\r\n`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const answered = await raw(app.baseUrl, head(Buffer.byteLength(pay)), pay);
      expect(answered.status, answered.body).toBe(200);
      // The action ran: its refusal of an unknown session, in the RSC answer.
      expect(answered.body).toMatch(/"ok":false,"message":"[^"]*cs_test_unknown/);
    }
    // Over the cap, a capability page's body is still answered 413, once.
    const tooLarge = await raw(app.baseUrl, head(64 * 1024 * 1024));
    expect(tooLarge.status).toBe(413);
  });

  it("sends X-Content-Type-Options: nosniff on every response", async () => {
    for (const url of ["/api/openapi.json", "/api/customers", "/api/nowhere", "/api/auth/session", "/api/auth/csrf", "/signin", "/no-such-page", "/reference"]) {
      const response = await fetch(`${app.baseUrl}${url}`, { redirect: "manual" });
      expect(response.headers.get("x-content-type-options"), `${url} (${response.status})`).toBe("nosniff");
    }
    // Answered before Next.js: malformed percent-encoding, and a declared body over the cap.
    const malformed = await raw(app.baseUrl, "GET /api/customers/%E0%A4%A HTTP/1.1\r\n");
    expect(malformed.status).toBe(400);
    expect(malformed.headers).toMatch(/^X-Content-Type-Options: nosniff$/im);
    const tooLarge = await raw(app.baseUrl, `POST /api/auth/callback/credentials HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${64 * 1024 * 1024}\r\n`);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers).toMatch(/^X-Content-Type-Options: nosniff$/im);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ status: 413, request_id: expect.stringMatching(/^req_/) });
  });
});

import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { api, apiBaseUrl, chunkedCustomerPost, type ApiResponse } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { signedInUser } from "../helpers/session";

/** Sends a request line exactly as given (fetch and URL would normalize a malformed path). */
async function rawGet(path: string, token: string): Promise<ApiResponse> {
  const base = new URL(apiBaseUrl());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(base.port), base.hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`);
    });
    let raw = "";
    socket.on("data", (chunk) => (raw += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("end", () => {
      const [head, ...rest] = raw.split("\r\n\r\n");
      const lines = head!.split("\r\n");
      const status = Number(lines[0]!.split(" ")[1]);
      const headers = new Headers();
      for (const line of lines.slice(1)) {
        const at = line.indexOf(":");
        headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      let text = rest.join("\r\n\r\n");
      // Chunked answers: keep the JSON between the chunk sizes.
      if (headers.get("transfer-encoding") === "chunked") text = text.replace(/^[0-9a-f]+\r\n/, "").replace(/\r\n0\r\n\r\n$/, "");
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status, headers, body, text });
    });
  });
}

describe("hostile input never yields a 5xx", () => {
  it("refuses NUL and lone surrogates in any body string with a 422 naming the field, creating nothing", async () => {
    const merchant = await newMerchant();
    const cases: Array<[unknown, string]> = [
      [{ email: "a@example.com", name: "a\u0000b" }, "name"],
      [{ email: "a@example.com", name: "\ud800" }, "name"],
      [{ email: "a@example.com", name: "x\udc00" }, "name"],
      [{ email: "a@example.com", metadata: { plan: "\u0000" } }, "metadata.plan"],
      [{ email: "a@example.com", metadata: { ["k\u0000"]: "v" } }, "metadata"],
    ];
    for (const [body, field] of cases) {
      const response = await merchant.client.post("/customers", body);
      expectProblem(response, 422);
      expect(response.body.errors).toContainEqual({ field, message: expect.stringMatching(/NUL character or an unpaired UTF-16 surrogate/) });
    }
    // JSON escapes (what JSON.stringify writes for a lone surrogate) and raw text alike.
    const escaped = await merchant.client.request("POST", "/customers", {
      rawBody: '{"email":"a@example.com","name":"\\ud83d"}',
      headers: { "Content-Type": "application/json" },
    });
    expectProblem(escaped, 422);
    // A proper surrogate pair is an ordinary character.
    expect((await merchant.client.post("/customers", { email: "pair@example.com", name: "😀" })).status).toBe(201);
    expect((await merchant.client.get("/customers")).body.total).toBe(1);
    expect((await merchant.client.get(`/${merchant.accountId}/events`)).body.total).toBe(1);
  });

  it("refuses JSON nested deeper than 64 levels with a 400 naming the limit, never a 500", async () => {
    const merchant = await newMerchant();
    for (const depth of [65, 2_000, 10_000]) {
      for (const [open, close] of [["[", "]"], ['{"a":', "}"]] as const) {
        const response = await merchant.client.request("POST", "/customers", {
          rawBody: `{"email":${open.repeat(depth)}1${close.repeat(depth)}}`,
          headers: { "Content-Type": "application/json" },
        });
        expectProblem(response, 400, /nested more than 64 levels/);
      }
    }
    // Brackets inside strings are text, not nesting; 64 levels are allowed (and fail the schema).
    expect((await merchant.client.post("/customers", { email: "deep@example.com", name: "[{".repeat(50) })).status).toBe(201);
    const sixtyFour = await merchant.client.request("POST", "/customers", {
      rawBody: `{"email":${"[".repeat(63)}1${"]".repeat(63)}}`,
      headers: { "Content-Type": "application/json" },
    });
    expectProblem(sixtyFour, 422);
    // A dashboard session's request goes through the same reader.
    const { live, cookie } = await signedInUser();
    const base = new URL(apiBaseUrl()).origin;
    const dashboard = await api().offContract.post(`/${live.id}/customers`, undefined, {
      rawBody: `{"email":${"[".repeat(2000)}${"]".repeat(2000)}}`,
      headers: { Cookie: cookie, Origin: base, "Content-Type": "application/json" },
    });
    expect(dashboard.status).toBe(400);
  });

  it("answers NUL in a path segment with 404 and in a query parameter with 400", async () => {
    const merchant = await newMerchant();
    expectProblem(await merchant.client.get("/customers/%00"), 404);
    expectProblem(await merchant.client.get("/customers/cus_%00"), 404);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/events?type=%00`), 400, /type/);
    expectProblem(await merchant.client.get("/customers?expand=a%00b"), 400, /expand/);
  });

  it("answers malformed percent-encoding with a problem body, not Next.js's plain-text error", async () => {
    const merchant = await newMerchant();
    for (const path of ["/api/%E0%A4%A/customers", "/api/customers/%E0%A4%A", "/api/customers/%", "/api/customers?expand=%E0%A4%A"]) {
      const response = await rawGet(path, merchant.secret.token);
      expect(response.status, `${path}: ${response.text}`).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(response.headers.get("content-type"), path).toBe("application/problem+json");
      expect(response.body, path).toMatchObject({ status: response.status, request_id: expect.stringMatching(/^req_/) });
    }
  });

  it("stops reading a chunked body at the limit with 413", async () => {
    const merchant = await newMerchant();
    const sent = await new Promise<{ status: number; body: string; bytesSent: number }>((resolve, reject) => {
      const request = chunkedCustomerPost(apiBaseUrl(), merchant.secret.token);
      let bytesSent = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let answered = false;
      request.on("response", (response) => {
        answered = true;
        let body = "";
        response.on("data", (data) => (body += data));
        response.on("end", () => {
          request.destroy();
          resolve({ status: response.statusCode!, body, bytesSent });
        });
      });
      request.on("error", (error) => (answered ? undefined : reject(error)));
      request.write('{"email":"big@example.com","name":"');
      // Up to 64 MB; the answer must come long before.
      const pump = () => {
        while (!answered && bytesSent < 64 * 1024 * 1024) {
          bytesSent += chunk.length;
          if (!request.write(chunk)) return void request.once("drain", pump);
        }
        if (!answered) request.end('"}');
      };
      pump();
    });
    expect(sent.status).toBe(413);
    expect(JSON.parse(sent.body)).toMatchObject({ status: 413, request_id: expect.stringMatching(/^req_/) });
    expect(sent.bytesSent).toBeLessThan(32 * 1024 * 1024);
    expect((await merchant.client.get("/customers")).body.total).toBe(0);
  });
});

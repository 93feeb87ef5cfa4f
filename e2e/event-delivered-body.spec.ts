import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "../tests/helpers/database";
import { Receiver } from "../tests/helpers/receiver";
import { startApp, type RunningApp } from "../tests/helpers/server";
import { RATE_LIMIT_TEST_ENV } from "../tests/setup/api-server";
import { api, createToken, signUp } from "./fixtures";

/**
 * Issue 27, webhook debugging: an event's page shows first the exact body its deliveries POSTed
 * (with each delivery's request headers, never the signing secret) and the deliveries on the first
 * screen, with the API's statuses ("failed", and "will retry at …" while a retry is scheduled).
 *
 * It starts its own app on a fresh database (so it runs the same against a deployment), one that
 * delivers to loopback receivers and retries an hour later: a failed delivery then stays "failed,
 * will retry at …" for as long as the spec looks at it.
 */
test("an event's page: the delivered body as received, headers without secrets, deliveries on the first screen", async ({ page }) => {
  test.setTimeout(300_000);
  const database = await createFreshDatabase("delivered_body");
  let app: RunningApp | undefined;
  const receiver = await Receiver.start();
  const failing = (await Receiver.start()).respond({ status: 500, body: "not today" });
  try {
    await migratePostgres(database.url);
    app = await startApp({
      DATABASE_URL: database.url,
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_RETRY_DELAYS: "1h",
      ...RATE_LIMIT_TEST_ENV,
    });
    const base = app.baseUrl;
    const merchant = await signUp(page, "Acme", base);
    const server = api(await createToken(page, merchant, "Server", "Secret", base), base);
    const endpoints = `/${merchant.accountId}/webhook-endpoints` as const;
    const good = (await server.post(endpoints, { url: receiver.url, events: ["customer.updated"] })).body;
    const bad = (await server.post(endpoints, { url: failing.url, events: ["customer.updated"] })).body;
    receiver.useSecret(good.secret);
    const secrets = [good.secret as string, bad.secret as string];

    const customer = (await server.post("/customers", { email: "jenny@example.com", name: "Jenny" })).body;
    await server.post(`/customers/${customer.id}`, { name: "Jenny Rosen" });
    const [received] = await receiver.waitFor(1);
    expect(received!.signatureValid).toBe(true);
    await failing.waitFor(1);
    const eventId = received!.body.id as string;
    expect(received!.body).toMatchObject({ type: "customer.updated", data: { previous_attributes: { name: "Jenny" } } });
    // The failed attempt is recorded (with its retry an hour away) before the page is judged.
    await expect
      .poll(async () => ((await server.get(`/${merchant.accountId}/events/${eventId}/deliveries`)).body as { status: string }[]).map((d) => d.status).sort())
      .toEqual(["delivered", "failed"]);

    for (const width of [1280, 390]) {
      await test.step(`at ${width} px`, async () => {
        const height = width === 390 ? 844 : 800;
        await page.setViewportSize({ width, height });
        await page.goto(`${base}/accounts/${merchant.accountId}/events/${eventId}`);
        await expect(page.getByRole("heading", { name: "customer.updated", level: 1 })).toBeVisible();

        // The body shown is, byte for byte, the one the receiver got (not the API event).
        const shown = (await page.getByTestId("delivered-body").textContent()) ?? "";
        expect(shown).toBe(received!.rawBody.toString("utf8"));
        expect(JSON.parse(shown)).toEqual(received!.body);
        // Indented for reading on request, the same JSON.
        await page.getByRole("button", { name: "Formatted" }).click();
        await expect(page.getByTestId("delivered-body")).toContainText('\n  "object": "event",');
        expect(JSON.parse((await page.getByTestId("delivered-body").textContent()) ?? "")).toEqual(received!.body);
        await page.getByRole("button", { name: "Formatted" }).click();
        await expect(page.getByTestId("delivered-body")).toHaveText(received!.rawBody.toString("utf8"));

        // The deliveries start on the first screen, above the API event's JSON.
        const deliveries = page.getByRole("heading", { name: "Deliveries", level: 2, exact: true });
        const top = (await deliveries.boundingBox())!.y;
        expect(top).toBeLessThan(height);
        expect(top).toBeLessThan((await page.getByRole("heading", { name: "Data", level: 2, exact: true }).boundingBox())!.y);

        // Statuses in the API's words; the failed one says when it is tried again.
        const ok = page.getByTestId("delivery").filter({ hasText: receiver.url });
        const failed = page.getByTestId("delivery").filter({ hasText: failing.url });
        await expect(ok.getByTestId("delivery-status")).toHaveText("delivered");
        await expect(failed.getByTestId("delivery-status")).toHaveText("failed");
        await expect(failed.getByTestId("delivery-next-retry")).toHaveText(/^will retry at \S/);
        await expect(ok.getByTestId("delivery-next-retry")).toHaveCount(0);
        await expect(page.getByText("retrying", { exact: true })).toHaveCount(0);

        // The request headers of the attempt, as the receiver got them; signatures masked.
        await ok.getByText("Request headers (attempt 1)").click();
        const headers = ok.getByTestId("delivered-headers");
        for (const name of ["webhook-id", "webhook-timestamp", "x-webhook-delivery-id", "x-webhook-event-type", "content-length"]) {
          await expect(headers).toContainText(`${received!.headers[name]}`);
        }
        await expect(headers).toContainText("webhook-signature:v1,••••••••");
        await expect(headers).not.toContainText(String(received!.headers["webhook-signature"]).slice(3, 20));

        // No signing secret anywhere in the page.
        const html = await page.content();
        for (const secret of secrets) {
          expect(html).not.toContain(secret);
          expect(html).not.toContain(secret.slice("whsec_".length));
        }
      });
    }
  } finally {
    await app?.stop();
    await receiver.close();
    await failing.close();
    await database.drop();
  }
});

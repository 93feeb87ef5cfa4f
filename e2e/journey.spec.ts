import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp, startReceiver } from "./fixtures";

test("a merchant's whole journey: sign up, token, API call, webhook, failure and manual retry", async ({ page }) => {
  const receiver = await startReceiver();
  try {
    const merchant = await signUp(page);
    const token = await createToken(page, merchant, "Server token");
    const server = api(token);

    // The merchant's server creates a customer; the timeline shows it.
    const created = await server.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen" });
    expect(created.status).toBe(201);
    await page.getByRole("link", { name: "Events", exact: true }).click();
    const timeline = page.getByRole("table", { name: "Events" });
    await expect(timeline).toContainText("customer.created");
    await expect(timeline).toContainText(created.body.id);

    // A webhook endpoint pointing at the test receiver, subscribed to everything.
    await page.getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.getByLabel("Endpoint URL").fill(receiver.url);
    await page.getByLabel("All events").check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    receiver.useSecret(secret);

    // An update is delivered, signed; the event detail shows the delivery delivered.
    await server.post(`/customers/${created.body.id}`, { name: "Jenny R." });
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.signatureValid).toBe(true);
    expect(delivered!.body.type).toBe("customer.updated");
    const updated = (await server.get(`/${merchant.accountId}/events?event_type=customer.updated`)).body.items[0];
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${updated.id}`);
    await expect(page.getByTestId("delivery-status")).toHaveText("delivered");

    // The receiver starts answering 4xx: the next delivery fails permanently, with no Retry elsewhere.
    receiver.respond({ status: 400, body: "bad" });
    await server.post(`/customers/${created.body.id}`, { name: "Jenny Rosen-Smith" });
    await receiver.waitFor(2);
    const failedEvent = (await server.get(`/${merchant.accountId}/events?event_type=customer.updated&limit=1`)).body.items[0];
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${failedEvent.id}`);
    await expect(page.getByTestId("delivery-status")).toHaveText("failed");

    // Healthy again: Retry delivers, and the page shows it without a reload.
    receiver.respond({ status: 200, body: "ok" });
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(page.getByTestId("delivery-status")).toHaveText("delivered");
    await expect(page.getByRole("button", { name: "Retry" })).toHaveCount(0);
    expect(receiver.requests.at(-1)!.headers["x-webhook-attempt"]).toBe("2");
  } finally {
    await receiver.close();
  }
});

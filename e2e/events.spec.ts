import { gzipSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, deliversHere, signUp, startReceiver, unreachableUrl } from "./fixtures";

test("resend an event to a chosen endpoint, after confirming: a new delivery of the same event", async ({ page }) => {
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Server"));
  // The app delivers to a receiver here when it can; a deployment's delivery is checked through the API.
  const receiver = deliversHere() ? await startReceiver() : null;
  try {
    const endpoints = `/${merchant.accountId}/webhook-endpoints` as const;
    await server.post(endpoints, { url: await unreachableUrl(), events: ["invoice.paid"], description: "Not this one" });
    const chosen = (await server.post(endpoints, { url: receiver?.url ?? (await unreachableUrl()), events: ["invoice.paid"], description: "Fulfilment" })).body;
    receiver?.useSecret(chosen.secret);
    // A customer.created event that no endpoint subscribes to: it had no delivery.
    const customer = (await server.post("/customers", { email: "resend@example.com" })).body;
    const event = (await server.get(`/${merchant.accountId}/events?aggregate_id=${customer.id}`)).body.items[0];

    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${event.id}`);
    await expect(page.getByText(/No webhook deliveries/)).toBeVisible();
    const form = page.getByRole("form", { name: "Resend this event" });
    await form.getByLabel("Endpoint").selectOption(chosen.id);

    // Cancelling sends nothing.
    await form.getByRole("button", { name: "Resend event" }).click();
    const dialog = page.getByRole("dialog", { name: "Resend this event?" });
    await expect(dialog).toContainText(chosen.url);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await server.get(`/${merchant.accountId}/events/${event.id}/deliveries`)).body).toHaveLength(0);

    await form.getByRole("button", { name: "Resend event" }).click();
    await dialog.getByRole("button", { name: "Resend", exact: true }).click();
    await expect(page.getByRole("status").filter({ hasText: "Resent" })).toBeVisible();
    await expect(page.getByText(/No webhook deliveries/)).toHaveCount(0);
    await expect(page.getByTestId("delivery")).toHaveCount(1);
    await expect(page.getByTestId("delivery").getByRole("heading", { level: 3 })).toContainText(chosen.url);
    const deliveries = (await server.get(`/${merchant.accountId}/events/${event.id}/deliveries`)).body as { webhook_endpoint_id: string }[];
    expect(deliveries.map((delivery) => delivery.webhook_endpoint_id)).toEqual([chosen.id]);
    if (receiver) {
      const [request] = await receiver.waitFor(1);
      expect(request!.signatureValid).toBe(true);
      expect(request!.headers["webhook-id"]).toBe(event.id);
      expect(request!.body).toMatchObject({ id: event.id, type: "customer.created" });
    }
  } finally {
    await receiver?.close();
  }
});

test("a bad filter in the events URL: a short message, and the picker shows the bad value", async ({ page }) => {
  const merchant = await signUp(page);
  const events = `${baseUrl()}/accounts/${merchant.accountId}/events`;

  await page.goto(`${events}?event_type=customer.exploded`);
  const message = page.getByRole("alert").filter({ hasText: "Unknown event type “customer.exploded”." });
  await expect(message).toBeVisible();
  // Short: not the validator's list of every type.
  expect((await message.textContent())!.length).toBeLessThan(200);
  const picker = page.getByLabel("Event type");
  await expect(picker).toHaveValue("customer.exploded");
  await expect(picker.locator("option:checked")).toHaveText("customer.exploded (unknown)");

  // Picking a real type clears the message and lists events.
  await picker.selectOption("customer.created");
  await expect(page).toHaveURL(`${events}?event_type=customer.created`);
  await expect(message).toHaveCount(0);
  await expect(page.getByText("No events match these filters.")).toBeVisible();

  // Another bad filter, cleared from the message.
  await page.goto(`${events}?aggregate_type=spaceship`);
  await expect(page.getByLabel("Aggregate type")).toHaveValue("spaceship");
  const other = page.getByRole("alert").filter({ hasText: "Unknown aggregate type “spaceship”." });
  await other.getByRole("button", { name: "clear the filters" }).click();
  await expect(page).toHaveURL(events);
  await expect(page.getByLabel("Aggregate type")).toHaveValue("");
  await expect(page.getByLabel("Event type")).toHaveValue("");
  await expect(page.getByRole("alert").filter({ hasText: "Unknown" })).toHaveCount(0);
  await expect(page.getByText(/^Showing \d+–\d+ of \d+$/)).toBeVisible();
});

test("the events page ships at most 250 KB of compressed JavaScript", async ({ page, browser }) => {
  const merchant = await signUp(page);
  // A fresh context (same session): nothing comes from the cache of the sign-up pages.
  const context = await browser.newContext({ storageState: await page.context().storageState() });
  try {
    const fresh = await context.newPage();
    const bodies: Promise<{ url: string; bytes: number }>[] = [];
    fresh.on("response", (response) => {
      if (response.request().resourceType() !== "script") return;
      bodies.push(response.body().then((body) => ({ url: response.url(), bytes: gzipSync(body, { level: 9 }).length })));
    });
    await fresh.goto(`${baseUrl()}/accounts/${merchant.accountId}/events`);
    await expect(fresh.getByText(/^Showing \d+–\d+ of \d+$/)).toBeVisible();
    await fresh.waitForLoadState("networkidle");
    const scripts = await Promise.all(bodies);
    const total = scripts.reduce((sum, script) => sum + script.bytes, 0);
    test.info().annotations.push({ type: "events page JS (gzip)", description: `${(total / 1024).toFixed(1)} KB in ${scripts.length} scripts` });
    console.log(`events page: ${(total / 1024).toFixed(1)} KB of gzipped JavaScript in ${scripts.length} scripts`);
    expect(scripts.length).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(250 * 1024);
  } finally {
    await context.close();
  }
});

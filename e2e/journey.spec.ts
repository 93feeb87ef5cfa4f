import { expect, test, type Page } from "@playwright/test";
import { api, baseUrl, createToken, deliversHere, signUp, startListener, startReceiver, unreachableUrl, type Merchant } from "./fixtures";

test("a merchant's whole journey: sign up, token, API call, webhook, failure and manual retry", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server token");
  const server = api(token);

  // The merchant's server creates a customer; the timeline shows it.
  const created = await server.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen" });
  expect(created.status).toBe(201);
  await page.getByRole("link", { name: "Events", exact: true }).click();
  const timeline = page.getByRole("table", { name: "Events" });
  await expect(timeline).toContainText("customer.created");
  await expect(timeline.getByRole("link", { name: "Jenny Rosen" }).first()).toHaveAttribute("title", new RegExp(`^${created.body.id}:`));

  // Events reach this machine through `npm run listen` (a pull from the API), whatever the app's network.
  const listener = await startListener(token);
  try {
    const customer = created.body.id as string;
    await (deliversHere() ? deliveredThenFailedThenRetried : refusedThenRetried)(page, merchant, server, customer);

    // Every update arrived through listen: the real event payloads, signed, in order.
    const updates = (await server.get(`/${merchant.accountId}/events?event_type=customer.updated`)).body.items as { id: string }[];
    const received = await listener.waitFor((requests) => requests.filter((r) => (r.body as { type: string }).type === "customer.updated").length >= 2);
    const forwarded = received.filter((r) => (r.body as { type: string }).type === "customer.updated");
    expect(forwarded.map((r) => r.headers["webhook-id"])).toEqual(updates.map((event) => event.id).reverse());
    expect(forwarded.every((r) => r.signatureValid)).toBe(true);
    expect(forwarded.map((r) => (r.body as { data: { object: { name: string } } }).data.object.name)).toEqual(["Jenny R.", "Jenny Rosen-Smith"]);
  } finally {
    await listener.close();
  }
});

type Server = ReturnType<typeof api>;

/** Adds an endpoint in the dashboard (all events) and returns its signing secret, shown once. */
async function addEndpoint(page: Page, url: string): Promise<string> {
  await page.getByRole("link", { name: "Webhooks", exact: true }).click();
  await page.getByLabel("Endpoint URL").fill(url);
  await page.getByLabel("All events").check();
  await page.getByRole("button", { name: "Add endpoint" }).click();
  const secret = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
  expect(secret).toMatch(/^whsec_/);
  return secret;
}

async function newestUpdate(server: Server, merchant: Merchant): Promise<string> {
  return (await server.get(`/${merchant.accountId}/events?event_type=customer.updated&limit=1`)).body.items[0].id;
}

/** The app reaches this machine: a receiver it delivers to, that answers 2xx, then 4xx, then 2xx again. */
async function deliveredThenFailedThenRetried(page: Page, merchant: Merchant, server: Server, customer: string) {
  const receiver = await startReceiver();
  try {
    receiver.useSecret(await addEndpoint(page, receiver.url));

    // An update is delivered, signed with the endpoint's secret; the event detail shows it delivered.
    await server.post(`/customers/${customer}`, { name: "Jenny R." });
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.signatureValid).toBe(true);
    expect(delivered!.body).toMatchObject({ type: "customer.updated" });
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${await newestUpdate(server, merchant)}`);
    await expect(page.getByTestId("delivery-status")).toHaveText("delivered");

    // The receiver starts answering 4xx: the next delivery fails permanently, with no Retry elsewhere.
    receiver.respond({ status: 400, body: "bad" });
    await server.post(`/customers/${customer}`, { name: "Jenny Rosen-Smith" });
    await receiver.waitFor(2);
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${await newestUpdate(server, merchant)}`);
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
}

/**
 * A deployment cannot reach this machine, and nothing public here answers it, so the dashboard's
 * delivery outcomes are checked with an endpoint it refuses: the first attempt fails permanently
 * with the reason in the attempt log, and a manual Retry makes attempt 2, logged as manual.
 */
async function refusedThenRetried(page: Page, merchant: Merchant, server: Server, customer: string) {
  await addEndpoint(page, await unreachableUrl());
  await server.post(`/customers/${customer}`, { name: "Jenny R." });
  await server.post(`/customers/${customer}`, { name: "Jenny Rosen-Smith" });

  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${await newestUpdate(server, merchant)}`);
  await expect(page.getByTestId("delivery-status")).toHaveText("failed");
  const attempts = page.getByTestId("delivery-attempt");
  await expect(attempts).toHaveCount(1);
  await expect(attempts.first()).toContainText("scheduled");
  await expect(attempts.first()).toContainText(/Refused to deliver to the non-public address/);

  await page.getByRole("button", { name: "Retry" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Retried: failed." })).toBeVisible();
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(1)).toContainText("manual");
  await expect(attempts.nth(1)).toContainText(/Refused to deliver to the non-public address/);
  // Still failed permanently: Retry stays offered.
  await expect(page.getByTestId("delivery-status")).toHaveText("failed");
  await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
}

import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, deliversHere, signUp, startListener, startReceiver, unreachableUrl } from "./fixtures";

test("endpoint page: rotation with overlap after confirmation, a test event by type, a replay", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server");
  const server = api(token);
  // The app delivers to a receiver here when it can; a deployment's deliveries are checked through the API.
  const receiver = deliversHere() ? await startReceiver() : null;
  const listener = await startListener(token);
  try {
    const url = receiver?.url ?? (await unreachableUrl());
    const endpoint = (await server.post(`/${merchant.accountId}/webhook-endpoints`, { url, events: ["*"] })).body;
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/webhooks/${endpoint.id}`);

    // Rotation asks first, offering the overlap (24 h by default).
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await expect(dialog.getByLabel("Keep the old secret signing for")).toHaveValue("86400");
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    await expect(page.getByText(/The previous secret also signs deliveries until/)).toBeVisible();
    await expect(page.getByText("Previous secret", { exact: true })).toBeVisible();
    const secret = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    receiver?.useSecret(secret);

    // A sample of a chosen type, marked as a test: an event of the account, so listen pulls it too.
    await page.getByLabel("Event type").selectOption("invoice.paid");
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Test event sent" })).toBeVisible();
    const pulled = await listener.waitForType("invoice.paid");
    expect(pulled.body).toMatchObject({ type: "invoice.paid", test: true });
    expect(pulled.signatureValid).toBe(true);
    const sampleId = (pulled.body as { id: string }).id;
    if (receiver) {
      // Delivered signed with the new secret and, during the overlap, the old one too.
      const [sample] = await receiver.waitFor(1);
      expect(sample!.body).toMatchObject({ id: sampleId, type: "invoice.paid", test: true });
      expect(sample!.signatureValid).toBe(true);
      expect(String(sample!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    }

    // Replaying the last day makes a second delivery of the same event (same webhook-id), with the
    // day's other events (the sign-in, the token: audit events), never those about the endpoint itself.
    const day = (await server.get(`/${merchant.accountId}/events?limit=100`)).body.items as { aggregate_id: string }[];
    const replayable = day.filter((event) => event.aggregate_id !== endpoint.id).length;
    expect(replayable).toBeGreaterThan(1);
    await page.getByRole("button", { name: "Replay events" }).click();
    await expect(page.getByRole("status").filter({ hasText: `${replayable} events queued for delivery again.` })).toBeVisible();
    const deliveries = async () => (await server.get(`/${merchant.accountId}/events/${sampleId}/deliveries`)).body as { webhook_endpoint_id: string }[];
    await expect.poll(async () => (await deliveries()).map((delivery) => delivery.webhook_endpoint_id)).toEqual([endpoint.id, endpoint.id]);
    if (receiver) {
      // The replay queues the day's other events too, delivered in no promised order: the sample's
      // two bodies are picked by its event id, and the second is a new delivery with the same webhook-id.
      const ofSample = (requests: { body: unknown }[]) => requests.filter((request) => (request.body as { id?: string })?.id === sampleId);
      const [sample, replayed] = ofSample(await receiver.waitFor((requests) => ofSample(requests).length >= 2)) as typeof receiver.requests;
      expect(replayed!.headers["webhook-id"]).toBe(sample!.headers["webhook-id"]);
      expect(replayed!.headers["x-webhook-delivery-id"]).not.toBe(sample!.headers["x-webhook-delivery-id"]);
    }
  } finally {
    await listener.close();
    await receiver?.close();
  }
});

test("an endpoint disabled after days of failures: notices on the overview and the endpoint, re-enable with replay", async ({ page }) => {
  const merchant = await signUp(page);
  await page.getByLabel("Account").selectOption({ label: "Sandbox: Acme (sandbox)" });
  await page.waitForURL((url) => /^\/accounts\/acc_[a-z]+_[0-9a-z]+$/.test(url.pathname) && !url.pathname.includes(merchant.accountId));
  const sandbox = { ...merchant, accountId: new URL(page.url()).pathname.split("/")[2]! };
  const server = api(await createToken(page, sandbox, "Sandbox server"));
  const base = `/${sandbox.accountId}/webhook-endpoints` as const;
  const endpoint = (await server.post(base, { url: await unreachableUrl(), events: ["customer.created"] })).body;

  // Deliveries fail; five days pass on the test clock; the next failure disables the endpoint.
  await server.post("/customers", { email: "a@example.com" });
  await expect.poll(async () => (await server.get(`${base}/${endpoint.id}`)).body.failing_since).not.toBeNull();
  const clock = (await server.get(`/${sandbox.accountId}/test-clock`)).body;
  await server.post(`/${sandbox.accountId}/test-clock/advance`, { to: new Date(Date.parse(clock.now) + 5 * 86_400_000 + 60_000).toISOString() });
  await server.post("/customers", { email: "b@example.com" });
  await expect.poll(async () => (await server.get(`${base}/${endpoint.id}`)).body.enabled).toBe(false);

  await page.goto(`${baseUrl()}/accounts/${sandbox.accountId}`);
  const notice = page.getByRole("alert").filter({ hasText: "disabled after failing" });
  await expect(notice).toContainText("Every delivery attempt failed for 5d");
  await notice.getByRole("link").click();
  await page.waitForURL(new RegExp(`/webhooks/${endpoint.id}$`));
  await expect(page.getByRole("alert").filter({ hasText: "Disabled automatically" })).toBeVisible();
  await page.getByRole("button", { name: "Enable and replay missed events" }).click();
  await expect(page.getByRole("status").filter({ hasText: /Enabled again; 1 missed event queued/ })).toBeVisible();
  await expect(page.getByText("Disabled automatically")).toHaveCount(0);
  expect((await server.get(`${base}/${endpoint.id}`)).body).toMatchObject({ enabled: true, disabled_reason: null });
});

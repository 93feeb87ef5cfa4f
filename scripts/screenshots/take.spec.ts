import { test } from "@playwright/test";
import { api, baseUrl, createToken, signUp, startReceiver } from "../../e2e/fixtures";

const shot = (name: string) => ({ path: `docs/screenshots/${name}.png`, fullPage: true });

test("README screenshots", async ({ page }) => {
  const receiver = await startReceiver();
  try {
    await page.goto(`${baseUrl()}/signin`);
    await page.screenshot(shot("sign-in"));
    const merchant = await signUp(page, "Acme Inc.");
    const token = await createToken(page, merchant, "Production server");
    await page.screenshot(shot("api-tokens"));
    const server = api(token);

    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/webhooks`);
    await page.getByLabel("Endpoint URL").fill(receiver.url);
    await page.getByLabel("All events").check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    receiver.useSecret((await page.getByTestId("shown-once-value").textContent())?.trim() ?? "");

    receiver.respond((_request, index) => (index === 3 ? { status: 500 } : { status: 200 }));
    for (const [email, name] of [
      ["jenny@example.com", "Jenny Rosen"],
      ["max@example.com", "Max Mustermann"],
    ]) {
      const customer = (await server.post("/customers", { email, name })).body;
      await server.post(`/customers/${customer.id}`, { metadata: { plan: "pro" } });
    }
    await receiver.waitFor(4);
    await page.waitForTimeout(2000);

    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot(shot("overview"));
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events`);
    await page.getByRole("table", { name: "Events" }).waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot(shot("events"));
    const updated = (await server.get(`/${merchant.accountId}/events?event_type=customer.updated`)).body.items[0];
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/events/${updated.id}`);
    await page.getByTestId("delivery-status").first().waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot(shot("event-detail"));
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/webhooks`);
    await page.getByRole("link", { name: receiver.url }).click();
    await page.getByRole("table", { name: "Recent deliveries" }).waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot(shot("webhook-endpoint"));

    // The catalogue, and a subscription created from the dashboard.
    const pro = (await server.post("/products", { name: "Pro plan" })).body;
    await server.post("/products", { name: "Onboarding workshop" });
    await server.post("/prices", { product: pro.id, currency: "usd", unit_amount_atom: 2900, type: "recurring", recurring: { interval: "month" } });
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/products`);
    await page.getByRole("table", { name: "Products" }).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot(shot("products"));
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/subscriptions?new=1`);
    const form = page.getByRole("form", { name: "New subscription" });
    await form.getByLabel("Quantity").fill("3");
    await form.getByLabel("Trial days (optional)").fill("14");
    await page.waitForTimeout(500);
    await page.screenshot(shot("new-subscription"));
    await form.getByRole("button", { name: "Create subscription" }).click();
    await page.getByRole("group", { name: "Subscription actions" }).waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot(shot("subscription"));

    // The sandbox: its test clock on the overview, and a hosted checkout page.
    await page.goto(`${baseUrl()}/accounts/${merchant.accountId}`);
    await page.getByLabel("Account").selectOption({ label: "Sandbox: Acme Inc. (sandbox)" });
    await page.waitForURL((url) => !url.pathname.includes(merchant.accountId));
    const sandbox = { ...merchant, accountId: new URL(page.url()).pathname.split("/")[2]! };
    const sandboxServer = api(await createToken(page, sandbox, "Sandbox server"));
    const product = (await sandboxServer.post("/products", { name: "Pro plan" })).body;
    const price = (
      await sandboxServer.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2900, type: "recurring", recurring: { interval: "month" } })
    ).body;
    await page.goto(`${baseUrl()}/accounts/${sandbox.accountId}`);
    await page.getByRole("heading", { name: "Test clock (sandbox)" }).waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot(shot("sandbox-overview"));
    const session = (
      await sandboxServer.post("/checkout/sessions", {
        mode: "subscription",
        line_items: [{ price: price.id, quantity: 1 }],
        success_url: "https://example.com/thanks",
      })
    ).body;
    await page.goto(session.url);
    await page.getByRole("button", { name: /pay/i }).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot(shot("checkout"));

    // A sandbox payment (an invoice paid with the sandbox card) and its refund form.
    const buyer = (await sandboxServer.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen" })).body;
    const invoice = (await sandboxServer.post("/invoices", { customer: buyer.id, currency: "usd", lines: [{ unit_amount_atom: 12000, description: "Onboarding workshop" }] })).body;
    await sandboxServer.post(`/invoices/${invoice.id}/finalize`);
    await sandboxServer.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_succeeds" });
    const payment = (await sandboxServer.get("/payments?limit=1")).body.items[0];
    await page.goto(`${baseUrl()}/accounts/${sandbox.accountId}/payments/${payment.id}`);
    await page.getByRole("form", { name: "Refund this payment" }).waitFor();
    await page.waitForTimeout(500);
    await page.screenshot(shot("payment"));
  } finally {
    await receiver.close();
  }
});

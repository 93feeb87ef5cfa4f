import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { api, createToken, signUp } from "./fixtures";

/** The merchant's own site, where checkout sends the customer back: a thank-you page. */
async function merchantSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    response.writeHead(200, { "Content-Type": "text/html" });
    response.end(`<!doctype html><title>Thanks</title><h1>Thanks for your order</h1><p>${request.url}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test("checkout: a customer subscribes on the hosted page, is declined once, pays, and lands on the merchant's site", async ({ page }) => {
  const site = await merchantSite();
  try {
    const merchant = await signUp(page, "Acme Coffee");
    // Checkout takes sandbox payments only: switch to the sandbox account and make its server token.
    await page.getByLabel("Account").selectOption({ index: 1 });
    await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
    const sandboxAccountId = new URL(page.url()).pathname.split("/")[2]!;
    expect(sandboxAccountId).not.toBe(merchant.accountId);
    const server = api(await createToken(page, { ...merchant, accountId: sandboxAccountId }, "Checkout server"));

    const product = await server.post("/products", { name: "Coffee club" });
    expect(product.status).toBe(201);
    const price = await server.post("/prices", {
      product: product.body.id,
      currency: "usd",
      unit_amount_atom: 2000,
      type: "recurring",
      recurring: { interval: "month" },
    });
    expect(price.status).toBe(201);
    const created = await server.post("/checkout/sessions", {
      mode: "subscription",
      line_items: [{ price: price.body.id }],
      success_url: `${site.url}/thanks?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${site.url}/cart`,
    });
    expect(created.status).toBe(201);
    const session = created.body;

    // The hosted page: the merchant, the plan and its price, clearly a sandbox page.
    await page.goto(session.url);
    await expect(page.getByRole("heading", { name: "Acme Coffee (sandbox)" })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Sandbox checkout" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Line items" })).toContainText("Coffee club");
    await expect(page.getByTestId("checkout-total")).toHaveText("$20.00");
    await expect(page.getByRole("link", { name: /Cancel and return/ })).toHaveAttribute("href", `${site.url}/cart`);

    // A declined card: the page says so and the session stays open.
    const pay = page.getByRole("button", { name: "Subscribe and pay $20.00" });
    await expect(pay).toBeEnabled();
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Payment method").selectOption("pm_sandbox_declined");
    await pay.click();
    await expect(page.getByRole("alert").filter({ hasText: "Your card was declined" })).toBeVisible();
    expect((await server.get(`/checkout/sessions/${session.id}`)).body.status).toBe("open");

    // Another method pays, and the browser lands on the merchant's success URL with the session id.
    await page.getByLabel("Payment method").selectOption("pm_sandbox_succeeds");
    await pay.click();
    await page.waitForURL(`${site.url}/thanks?session_id=${session.id}`);
    await expect(page.getByRole("heading", { name: "Thanks for your order" })).toBeVisible();

    // The merchant's server sees the completed session, the active subscription and its paid invoice.
    const completed = (await server.get(`/checkout/sessions/${session.id}`)).body;
    expect(completed).toMatchObject({ status: "complete", payment_status: "paid", customer_email: "ada@example.com" });
    const subscription = (await server.get(`/subscriptions/${completed.subscription}`)).body;
    expect(subscription).toMatchObject({ status: "active", customer: completed.customer, default_payment_method: "pm_sandbox_succeeds" });
    expect((await server.get(`/invoices/${completed.invoice}`)).body).toMatchObject({ status: "paid", paid_amount_atom: 2000 });
    const events = (await server.get(`/${sandboxAccountId}/events?event_type=checkout.session.completed`)).body.items;
    expect(events).toEqual([expect.objectContaining({ aggregate_id: session.id, actor_type: "customer", actor_id: completed.customer })]);

    // Back on the page: it is complete and cannot be paid again.
    await page.goto(session.url);
    await expect(page.getByRole("heading", { name: "This checkout is complete" })).toBeVisible();
    await expect(page.getByRole("button", { name: /pay/i })).toHaveCount(0);
  } finally {
    await site.close();
  }
});

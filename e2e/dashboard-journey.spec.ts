import { expect, test, type Page } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/*
 * Issue #45's "Done when": a merchant sets up billing in the dashboard alone (a tax rate, a
 * customer with an address, a VAT id and an extra invoice recipient, a meter, the portal's
 * configuration and the seller's details, each save confirmed), then every dashboard page shows
 * names, not raw `txr_`/`si_`/`user_` ids, as labels; visiting them adds no 4xx to the request
 * log; and the portal's card after a cancel at the period end reads one consistent sentence.
 */

/** A raw id of a tax rate, a subscription item or a user (`usr_` as the issue spells it, `user_` as ours are). */
const RAW_ID = /\b(txr|si|usr|user)_[a-z]+_[0-9a-z]{6,}/;

/** No link, button, heading, table cell or select option is labelled by a raw id (ids stay copyable beside names). */
async function expectNoRawIdLabels(page: Page, where: string) {
  for (const role of ["link", "button", "heading", "cell", "option"] as const) {
    const labels = await page.locator("main").getByRole(role).allInnerTexts();
    expect(
      labels.filter((label) => RAW_ID.test(label)),
      `${where}: ${role} labels`,
    ).toEqual([]);
  }
}

test("dashboard journey: billing set up in the dashboard, names not ids, no 4xx of its own, one sentence after a cancel at the period end", async ({ page }) => {
  test.setTimeout(240_000);
  const merchant = await signUp(page, "Journey Rösterei");
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;

  // A tax rate.
  await page.goto(`${base}/tax-rates`);
  await page.getByRole("button", { name: "New tax rate" }).click();
  const rateForm = page.getByRole("form", { name: "New tax rate" });
  await rateForm.getByLabel("Display name").fill("USt.");
  await rateForm.getByLabel("Percentage").fill("19");
  await rateForm.getByRole("button", { name: "Create tax rate" }).click();
  await expect(rateForm.getByRole("status")).toContainText("Tax rate created: USt. 19 %");

  // A customer with an address, a VAT id and an extra invoice recipient.
  await page.goto(`${base}/customers`);
  await page.getByRole("button", { name: "New customer" }).click();
  const customerForm = page.getByRole("form", { name: "New customer" });
  await customerForm.getByLabel("Email").fill("lena@example.com");
  await customerForm.getByLabel("Name (optional)").fill("Lena Schmidt");
  await customerForm.getByLabel("Address line 1").fill("Hauptstraße 1");
  await customerForm.getByLabel("Postal code").fill("10115");
  await customerForm.getByLabel("City").fill("Berlin");
  await customerForm.getByLabel("Country").fill("DE");
  await customerForm.getByLabel("EU VAT id").fill("DE136695976");
  await customerForm.getByLabel("Also send invoices to").fill("buchhaltung@example.com");
  await customerForm.getByRole("button", { name: "Create customer" }).click();
  await expect(page).toHaveURL(/\/customers\/cus_/);
  const customerId = new URL(page.url()).pathname.split("/").pop()!;
  await expect(page.getByTestId("customer-tax-ids")).toHaveText("DE136695976");
  await expect(page.getByTestId("customer-address")).toContainText("10115 Berlin");
  await expect(page.getByTestId("customer-invoice-emails")).toHaveText("buchhaltung@example.com");

  // A meter.
  await page.goto(`${base}/meters`);
  await page.getByRole("button", { name: "New meter" }).click();
  const meterForm = page.getByRole("form", { name: "New meter" });
  await meterForm.getByLabel("Display name").fill("API calls");
  await meterForm.getByLabel("Event name").fill("api_call");
  await meterForm.getByLabel("Aggregation").selectOption("sum");
  await meterForm.getByRole("button", { name: "Create meter" }).click();
  await expect(page).toHaveURL(/\/meters\/mtr_/);
  const meterPage = page.url();

  // The plans and the subscription come from the merchant's server.
  const server = api(await createToken(page, merchant, "Journey server"));
  const product = (await server.post("/products", { name: "Pro plan" })).body;
  const monthly = (await server.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 1500, type: "recurring", recurring: { interval: "month" } })).body;
  const team = (await server.post("/products", { name: "Team plan" })).body;
  const teamMonthly = (await server.post("/prices", { product: team.id, currency: "eur", unit_amount_atom: 4500, type: "recurring", recurring: { interval: "month" } })).body;
  const subscription = (await server.post("/subscriptions", { customer: customerId, items: [{ price: monthly.id, quantity: 2 }] })).body;
  expect(subscription.status, JSON.stringify(subscription)).toBe("active");

  // The portal's configuration: cancel at the period end, and a plan switch to a price picked by name.
  await page.goto(`${base}/settings`);
  const portalForm = page.getByRole("form", { name: "Customer portal configuration" });
  await portalForm.getByRole("checkbox", { name: "Cancel", exact: true }).check();
  await portalForm.getByRole("combobox", { name: "Cancel", exact: true }).selectOption("at_period_end");
  await portalForm.getByRole("checkbox", { name: "Switch plan", exact: true }).check();
  await portalForm.getByRole("group", { name: "Prices customers may switch between" }).getByLabel(/Team plan · €45\.00/).check();
  await portalForm.getByRole("button", { name: "Save portal settings" }).click();
  await expect(portalForm.getByRole("status")).toHaveText("Saved.");
  expect((await server.get("/portal-configuration")).body.features.subscription_update).toMatchObject({ enabled: true, prices: [teamMonthly.id] });

  // The seller's details confirm their save too, and show the invoice numbers' prefix before the first invoice.
  const seller = page.getByRole("form", { name: "Seller details" });
  await expect(seller.getByText(/Invoices are numbered JOURNE-0001/)).toBeVisible();
  await seller.getByRole("textbox", { name: "Business name", exact: true }).fill("Journey Rösterei GmbH");
  await seller.getByRole("button", { name: "Save seller details" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved. Invoices finalized from now on" })).toBeVisible();

  // The subscription's change form names its item by product, price and quantity.
  const since = new Date().toISOString();
  await page.goto(`${base}/subscriptions/${subscription.id}`);
  const item = page.getByRole("form", { name: "Change items" }).getByLabel("Item");
  await expect(item.locator("option").first()).toHaveText(/^Pro plan · €15\.00 \/ month.* × 2$/);

  // Every page: names as labels, never a raw id.
  const invoice = subscription.latest_invoice as string;
  const rate = (await server.get("/tax-rates")).body.items[0].id as string;
  const created = (await server.get("/events?event_type=api_token.created&limit=1")).body.items[0].id as string;
  const pages = [
    "",
    "/customers",
    `/customers/${customerId}`,
    "/subscriptions",
    `/subscriptions/${subscription.id}`,
    "/invoices",
    `/invoices/${invoice}`,
    "/meters",
    new URL(meterPage).pathname.replace(`/accounts/${merchant.accountId}`, ""),
    "/products",
    `/products/${product.id}`,
    `/prices/${monthly.id}`,
    "/tax-rates",
    `/tax-rates/${rate}`,
    "/coupons",
    "/payments",
    "/payment-intents",
    "/refunds",
    "/disputes",
    "/checkout-sessions",
    "/tokens",
    "/webhooks",
    "/events",
    `/events/${created}`,
    "/emails",
    "/settings",
    "/logs",
  ];
  for (const path of pages) {
    const response = await page.goto(`${base}${path}`);
    expect(response?.status(), path).toBe(200);
    await page.waitForLoadState("networkidle");
    await expect(page.getByText(/^Loading/)).toHaveCount(0);
    await expectNoRawIdLabels(page, path || "/");
  }

  // Those visits added no 4xx to the request log (once the writer's batch has landed: the customer page's read is there).
  await expect(async () => {
    const reads = (await server.get(`/request-logs?source=dashboard&operation=getCustomer&created[gte]=${encodeURIComponent(since)}`)).body.items;
    expect(reads.length).toBeGreaterThan(0);
  }).toPass({ timeout: 30_000 });
  const errors = (await server.get(`/request-logs?source=dashboard&status=4xx&created[gte]=${encodeURIComponent(since)}&limit=100`)).body.items;
  expect(errors.map((row: { operation_id: string | null; status: number; path: string }) => `${row.status} ${row.operation_id} ${row.path}`)).toEqual([]);

  // The portal: a cancel at the period end reads one sentence, on the card and in the notice.
  const session = (await server.post("/portal-sessions", { customer: customerId })).body;
  await page.goto(session.url);
  const card = page.getByTestId("portal-subscription").filter({ hasText: "Pro plan" });
  await expect(card.getByTestId("subscription-state")).toHaveText(/^Your subscription is active and renews on /);
  await card.getByTestId("cancel-subscription").click();
  await expect(page.getByTestId("cancel-mode")).toHaveAttribute("data-mode", "at_period_end");
  await page.getByTestId("confirm-cancel").click();
  await expect(page.getByRole("status")).toHaveText(/^Your subscription ends on \w+ \d{1,2}, \d{4}\.$/);
  const ends = card.getByTestId("pending-cancel");
  await expect(ends).toHaveText(/^Your subscription ends on \w+ \d{1,2}, \d{4}; it will not renew\.$/);
  // Nothing else on the card contradicts it: no renewal, no scheduled plan, no "cancelled", no raw status.
  await expect(card.getByText(/cancelled|renews|Next invoice|Scheduled for|Status:/)).toHaveCount(0);
  expect((await server.get(`/subscriptions/${subscription.id}`)).body).toMatchObject({ cancel_at_period_end: true, status: "active" });
});

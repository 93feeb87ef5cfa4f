import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp, unreachableUrl } from "./fixtures";

/*
 * Objects are shown by the merchant's names, the ids kept on hover or beside them: tax rates by
 * display name and percentage, a subscription by its customer and product, an endpoint's
 * deliveries by event type, a user actor by name and email.
 */
test("names instead of ids: tax rates, subscription titles, delivery event types and actors", async ({ page }) => {
  const merchant = await signUp(page, "Names");
  const base = `${baseUrl()}/accounts/${merchant.accountId}`;
  const server = api(await createToken(page, merchant, "Names server"));

  const endpoint = (await server.post("/webhook-endpoints", { url: await unreachableUrl(), events: ["customer.created"] })).body;
  const ust = (await server.post("/tax-rates", { display_name: "USt.", percentage: 19, inclusive: false })).body;
  const customer = (await server.post("/customers", { email: "lena@example.com", name: "Lena Schmidt" })).body;
  const product = (await server.post("/products", { name: "Rösterei Abo" })).body;
  const oneTime = (await server.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 4500, type: "one_time" })).body;
  const monthly = (await server.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 1500, type: "recurring", recurring: { interval: "month" } })).body;
  const draft = (await server.post("/invoices", { customer: customer.id, currency: "eur", lines: [{ price: oneTime.id, tax_rates: [ust.id] }] })).body;
  const invoice = (await server.post(`/invoices/${draft.id}/finalize`)).body;
  expect(invoice.tax_atom).toBe(855);
  const subscription = (await server.post("/subscriptions", { customer: customer.id, items: [{ price: monthly.id }] })).body;
  expect(subscription.id).toBeTruthy();

  // The invoice's tax reads "USt. 19 %", in the totals and on the line; the rate id is not a label.
  await page.goto(`${base}/invoices/${invoice.id}`);
  await expect(page.getByText("USt. 19 %: €8.55")).toBeVisible();
  await expect(page.getByRole("table", { name: "Lines" })).toContainText("USt. 19 %");
  await expect(page.locator("main")).not.toContainText("txr_");

  // The subscription is titled by its customer and product, the id beside.
  await page.goto(`${base}/subscriptions/${subscription.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Lena Schmidt · Rösterei Abo");
  await expect(page.getByRole("heading", { level: 1 })).toContainText(subscription.id);

  // The endpoint's deliveries name their event type.
  await page.goto(`${base}/webhooks/${endpoint.id}`);
  await expect(page.getByTestId("delivery-event-type").first()).toHaveText("customer.created");

  // The token the user created: its event names the user by name and email.
  const created = (await server.get("/events?event_type=api_token.created&limit=1")).body.items[0];
  await page.goto(`${base}/events/${created.id}`);
  await expect(page.getByTestId("event-actor")).toHaveText(`Ada Merchant <${merchant.email}>`);
});

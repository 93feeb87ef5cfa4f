import { expect, test } from "@playwright/test";
import { formatAtoms } from "@/lib/money";
import { api, createToken, signUp } from "./fixtures";

/*
 * One price in many currencies, in Chromium (docs/billing.md, "Currency options"): a sandbox
 * merchant's monthly plan of $20.00 a seat with €18.50 and ¥3,000 options. An EUR customer and a JPY
 * customer each subscribe to two seats on the hosted checkout page, which shows and charges their own currency's
 * amount, then see that amount in their portal.
 */

type Server = ReturnType<typeof api>;

/** The merchant's shop, where checkout sends the customer back: answered by the browser's route, no server. */
const SHOP = "https://shop.example";

async function ok<T = Record<string, unknown>>(response: Promise<{ status: number; text: string; body: unknown }>): Promise<T & { id: string }> {
  const result = await response;
  expect(result.status, result.text).toBeLessThan(300);
  return result.body as T & { id: string };
}

/** Each currency's unit amount, and two seats' total as the pages print it. */
const CASES = [
  { currency: "eur", atoms: 1850, shown: "€37.00", unitShown: "€18.50" },
  { currency: "jpy", atoms: 3000, shown: "¥6,000", unitShown: "¥3,000" },
] as const;
const SEATS = 2;

test.describe.configure({ mode: "serial" });

let server: Server;
let account: string;
let price: string;

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const merchant = await signUp(page, "Worldwide Co");
  await page.getByLabel("Account").selectOption({ label: "Sandbox: Worldwide Co (sandbox)" });
  await page.waitForURL((url) => !url.pathname.includes(merchant.accountId));
  account = new URL(page.url()).pathname.split("/")[2]!;
  server = api(await createToken(page, { ...merchant, accountId: account }, "Worldwide server"));
  await context.close();
  const product = await ok(server.post(`/${account}/products`, { name: "Team plan" }));
  price = (
    await ok(
      server.post(`/${account}/prices`, {
        product: product.id,
        currency: "usd",
        unit_amount_atom: 2000,
        currency_options: Object.fromEntries(CASES.map(({ currency, atoms }) => [currency, { unit_amount_atom: atoms }])),
        type: "recurring",
        recurring: { interval: "month" },
      }),
    )
  ).id;
});

for (const { currency, atoms, shown, unitShown } of CASES) {
  test(`a ${currency.toUpperCase()} customer subscribes to two seats at checkout for ${shown} and sees it in the portal`, async ({ page }) => {
    // The formatter the pages use gives the figures this test was written with.
    expect([formatAtoms(atoms, currency, "en"), formatAtoms(SEATS * atoms, currency, "en")]).toEqual([unitShown, shown]);
    await page.route(`${SHOP}/**`, (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Thanks</title><h1>Thanks for your order</h1>" }));
    const customer = await ok<{ currency: string; email: string }>(
      server.post(`/${account}/customers`, { email: `${currency}-${Date.now()}@example.com`, name: `${currency.toUpperCase()} buyer`, currency }),
    );
    expect(customer.currency).toBe(currency);
    const session = await ok<{ url: string; currency: string; amount_total_atom: number }>(
      server.post(`/${account}/checkout/sessions`, {
        mode: "subscription",
        customer: customer.id,
        line_items: [{ price, quantity: SEATS }],
        success_url: `${SHOP}/thanks?session_id={CHECKOUT_SESSION_ID}`,
        cancel_url: `${SHOP}/cart`,
      }),
    );
    expect(session).toMatchObject({ currency, amount_total_atom: SEATS * atoms });

    // The hosted page shows the customer's currency's amount, never the price's own $20.00.
    await page.goto(session.url);
    await expect(page.getByTestId("checkout-total")).toHaveText(shown);
    await expect(page.getByText("$20.00")).toHaveCount(0);
    await page.getByLabel("Payment method").selectOption("pm_sandbox_succeeds");
    await page.getByRole("button", { name: `Subscribe and pay ${shown}` }).click();
    await page.waitForURL(`${SHOP}/thanks?session_id=${session.id}`);

    // What was charged: the subscription and its paid first invoice, in the customer's currency.
    const completed = await ok<{ subscription: string; invoice: string }>(server.get(`/${account}/checkout/sessions/${session.id}`));
    expect(await ok(server.get(`/${account}/subscriptions/${completed.subscription}`))).toMatchObject({ status: "active", currency });
    expect(await ok(server.get(`/${account}/invoices/${completed.invoice}`))).toMatchObject({ status: "paid", currency, total_amount_atom: SEATS * atoms, paid_amount_atom: SEATS * atoms });

    // The customer's portal: the plan's unit amount, the seats' amount and the next invoice in their currency.
    const portal = await ok<{ url: string }>(server.post(`/${account}/portal-sessions`, { customer: customer.id }));
    await page.goto(portal.url);
    const card = page.getByTestId("portal-subscription");
    await expect(card.getByTestId("item-price")).toContainText(unitShown);
    await expect(card.getByTestId("item-amount")).toContainText(`${SEATS} units: ${shown}`);
    await expect(card.getByTestId("next-invoice")).toContainText(shown);
    await expect(card).not.toContainText("$");
  });
}

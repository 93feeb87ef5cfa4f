import { readFile } from "node:fs/promises";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { formatAtoms } from "@/lib/money";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/*
 * The customer portal's journeys, in Chromium: a sandbox merchant (its server's secret token) gives
 * its customer a portal link; the customer cancels and undoes, upgrades (the amount shown is the
 * API preview's), downloads an invoice, is refused a reused or expired link, and all of it fits 390 px;
 * last (the sandbox's clock moves a month for the whole account), a downgrade scheduled in the portal
 * (`plan_change: upgrade_now_downgrade_at_period_end`) is applied by the renewal.
 */

type Server = ReturnType<typeof api>;
type Setup = { server: Server; account: string; base: string; basic: string; upgrade: string; customer: string; subscription: string };

test.describe.configure({ mode: "serial" });

let setup: Setup;

async function ok<T = Record<string, unknown>>(response: Promise<{ status: number; text: string; body: unknown }>): Promise<T & { id: string }> {
  const result = await response;
  expect(result.status, result.text).toBeLessThan(300);
  return result.body as T & { id: string };
}

/** A merchant's sandbox account, its server token, two monthly plans, a customer paying 10.00 a month. */
async function sandboxMerchant(browser: Browser): Promise<Setup> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const merchant = await signUp(page, "Portal Co");
  await page.getByLabel("Account").selectOption({ label: "Sandbox: Portal Co (sandbox)" });
  await page.waitForURL((url) => !url.pathname.includes(merchant.accountId));
  const sandbox = { ...merchant, accountId: new URL(page.url()).pathname.split("/")[2]! };
  const server = api(await createToken(page, sandbox, "Portal server"));
  await context.close();
  const account = sandbox.accountId;
  const root: `/${string}` = `/${account}`;
  const plan = async (name: string, amount: number) => {
    const product = await ok(server.post(`${root}/products`, { name }));
    return (await ok(server.post(`${root}/prices`, { product: product.id, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } }))).id;
  };
  const basic = await plan("Basic", 1000);
  const upgrade = await plan("Pro", 3000);
  await ok(
    server.post(`${root}/portal-configuration`, {
      features: { subscription_update: { enabled: true, prices: [upgrade], quantity: { enabled: true, maximum: 10 } } },
      branding: { business_name: "Portal Co", accent_color: "#0f766e" },
      default_return_url: "https://portal-co.example/account",
    }),
  );
  const customer = await ok(server.post(`${root}/customers`, { email: `portal-${Date.now()}@example.com`, name: "Grace Customer" }));
  const subscription = await ok(server.post(`${root}/subscriptions`, { customer: customer.id, items: [{ price: basic }], default_payment_method: "pm_sandbox_succeeds" }));
  return { server, account, base: baseUrl(), basic, upgrade, customer: customer.id, subscription: subscription.id };
}

/** A new link for the customer (`flow` optional), opened in `page`. */
async function openPortal(page: Page, body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const session = await ok<{ url: string }>(setup.server.post(`/${setup.account}/portal-sessions`, { customer: setup.customer, ...body }));
  await page.goto(session.url);
  return session;
}

test.beforeAll(async ({ browser }) => {
  setup = await sandboxMerchant(browser);
});

test("cancel at the period end, then undo it", async ({ page }) => {
  await openPortal(page);
  await expect(page.getByRole("heading", { name: "Subscriptions" })).toBeVisible();
  const card = page.getByTestId("portal-subscription").filter({ has: page.getByText("Basic") });
  await expect(card.getByTestId("next-invoice")).toHaveAttribute("data-atoms", "1000");
  await card.getByTestId("cancel-subscription").click();
  await expect(page.getByTestId("cancel-mode")).toHaveAttribute("data-mode", "at_period_end");
  await page.getByLabel("It's too expensive").check();
  await page.getByTestId("confirm-cancel").click();
  // One sentence: the notice and the card say when it ends; nothing says it renews or is cancelled already.
  await expect(page.getByRole("status")).toHaveText(/^Your subscription ends on \w+ \d{1,2}, \d{4}\.$/);
  await expect(card.getByTestId("pending-cancel")).toHaveText(/^Your subscription ends on \w+ \d{1,2}, \d{4}; it will not renew\.$/);
  await expect(card.getByText(/cancelled|renews|Scheduled for|Status:/)).toHaveCount(0);
  await expect(card.getByTestId("next-invoice")).toHaveCount(0);
  expect((await setup.server.get(`/${setup.account}/subscriptions/${setup.subscription}`)).body).toMatchObject({
    cancel_at_period_end: true,
    metadata: { cancellation_reason: "too_expensive" },
  });

  await card.getByTestId("undo-cancel").click();
  await expect(page.getByRole("status")).toHaveText("Your subscription continues.");
  await expect(card.getByTestId("pending-cancel")).toHaveCount(0);
  expect((await setup.server.get(`/${setup.account}/subscriptions/${setup.subscription}`)).body).toMatchObject({ cancel_at_period_end: false });
  const events = (await setup.server.get(`/${setup.account}/events?aggregate_id=${setup.subscription}&event_type=customer.subscription.updated&limit=2`)).body;
  expect(events.items.map((event: { actor_type: string }) => event.actor_type)).toEqual(["customer", "customer"]);
});

test("upgrade: the amount shown is the API preview's, and confirming applies it", async ({ page }) => {
  await openPortal(page, { flow: { type: "subscription_update", subscription: setup.subscription } });
  await expect(page.getByRole("heading", { name: "Change plan" })).toBeVisible();
  await page.getByTestId(`plan-${setup.upgrade}`).check();
  await page.getByTestId("review-change").click();
  await expect(page.getByRole("heading", { name: "Review the change" })).toBeVisible();
  const requestId = (await page.getByTestId("change-request").getAttribute("data-id"))!;
  const shownNow = Number(await page.getByTestId("amount-due-now").getAttribute("data-atoms"));
  const shownNext = Number(await page.getByTestId("next-invoice-amount").getAttribute("data-atoms"));
  const preview = (await setup.server.get(`/${setup.account}/subscriptions/${setup.subscription}/change-requests/${requestId}`)).body;
  expect(shownNow).toBe(preview.amount_due_now_total_atom);
  expect(shownNext).toBe(preview.next_invoice_total_atom);
  expect(shownNext).toBe(3000);
  expect(shownNow).toBeGreaterThan(0);
  // The text is the same number, formatted.
  await expect(page.getByTestId("amount-due-now")).toHaveText(formatAtoms(preview.amount_due_now_total_atom, "usd", "en"));
  await page.getByTestId("confirm-change").click();
  await expect(page.getByRole("status")).toHaveText("Your plan is changed.");
  await expect(page.getByTestId("portal-subscription").getByText("Pro")).toBeVisible();
  const after = (await setup.server.get(`/${setup.account}/subscriptions/${setup.subscription}`)).body;
  expect(after.items[0].price).toBe(setup.upgrade);
  const applied = (await setup.server.get(`/${setup.account}/subscriptions/${setup.subscription}/change-requests/${requestId}`)).body;
  expect(applied).toMatchObject({ status: "applied", amount_due_now_atom: shownNow });
});

test("download an invoice PDF", async ({ page }) => {
  await openPortal(page);
  await page.getByRole("link", { name: "Invoices" }).click();
  await expect(page.getByTestId("portal-invoice").first()).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("invoice-pdf").first().click()]);
  const bytes = await readFile((await download.path())!);
  expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
  expect(download.suggestedFilename()).toMatch(/\.pdf$/);
});

test("the portal at 390 px wide: nothing overflows sideways", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openPortal(page);
  for (const path of ["/portal", "/portal/invoices", "/portal/details", "/portal/payment-method", `/portal/subscriptions/${setup.subscription}/change`, `/portal/subscriptions/${setup.subscription}/cancel`]) {
    await page.goto(`${setup.base}${path}`);
    await expect(page.locator("main h1")).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, path).toBeLessThanOrEqual(0);
  }
  // The review of a change (quantity 2), then "Back" discards it.
  await page.goto(`${setup.base}/portal/subscriptions/${setup.subscription}/change`);
  await page.getByTestId("quantity").fill("2");
  await page.getByTestId("review-change").click();
  await expect(page.getByTestId("amount-due-now")).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  await page.getByTestId("discard-change").click();
  await expect(page.getByRole("heading", { name: "Subscriptions" })).toBeVisible();
});

test("a reused link and an expired link are refused, with the way back", async ({ page, browser }) => {
  const session = await openPortal(page);
  await expect(page.getByRole("heading", { name: "Subscriptions" })).toBeVisible();
  const other = await browser.newContext();
  const second = await other.newPage();
  await second.goto(session.url);
  await expect(second.getByTestId("refused-reason")).toHaveAttribute("data-reason", "used");
  await expect(second.getByTestId("refused-return")).toHaveAttribute("href", "https://portal-co.example/account");
  await expect(second.getByRole("heading", { name: "Subscriptions" })).toHaveCount(0);

  // An hour and a second later on the sandbox's clock (last: the clock moves for the whole account).
  const late = await ok<{ url: string; expires_at: string }>(setup.server.post(`/${setup.account}/portal-sessions`, { customer: setup.customer }));
  await ok(setup.server.post(`/${setup.account}/test-clock/advance`, { to: new Date(new Date(late.expires_at).getTime() + 1000).toISOString() }));
  await second.goto(late.url);
  await expect(second.getByTestId("refused-reason")).toHaveAttribute("data-reason", "expired");
  await expect(second.getByText("This link has expired.")).toBeVisible();
  await other.close();
});

test("a downgrade scheduled in the portal is applied at the renewal by the sandbox test clock", async ({ page }) => {
  const root: `/${string}` = `/${setup.account}`;
  await ok(setup.server.post(`${root}/portal-configuration`, { features: { subscription_update: { prices: [setup.upgrade, setup.basic], plan_change: "upgrade_now_downgrade_at_period_end" } } }));
  const before = (await setup.server.get(`${root}/subscriptions/${setup.subscription}`)).body;
  expect(before.items[0].price).toBe(setup.upgrade);

  // Pro (30.00) → Basic (10.00): nothing due now, it waits for the period's end.
  await openPortal(page, { flow: { type: "subscription_update", subscription: setup.subscription } });
  await page.getByTestId(`plan-${setup.basic}`).check();
  await page.getByTestId("review-change").click();
  await expect(page.getByTestId("effective-at")).toHaveAttribute("data-effective", "period_end");
  await expect(page.getByTestId("amount-due-now")).toHaveAttribute("data-atoms", "0");
  const requestId = (await page.getByTestId("change-request").getAttribute("data-id"))!;
  await page.getByTestId("confirm-change").click();
  await expect(page.getByRole("status")).toHaveText(/^Your plan changes on /);
  const card = page.getByTestId("portal-subscription");
  await expect(card.getByTestId("pending-change")).toHaveAttribute("data-id", requestId);
  await expect(card.getByTestId("pending-change")).toContainText("New plan: Basic");
  await expect(card.getByTestId("next-invoice")).toHaveAttribute("data-atoms", "1000");
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  expect((await setup.server.get(`${root}/subscriptions/${setup.subscription}`)).body).toMatchObject({
    items: [{ price: setup.upgrade }],
    pending_changes: [{ change_request: requestId }],
  });

  // A minute past the period's end on the sandbox's clock: the renewal applies it, then bills Basic.
  await ok(setup.server.post(`${root}/test-clock/advance`, { to: new Date(Date.parse(before.current_period_end) + 60_000).toISOString() }));
  const after = (await setup.server.get(`${root}/subscriptions/${setup.subscription}`)).body;
  expect(after).toMatchObject({ items: [{ price: setup.basic }], pending_changes: [], current_period_start: before.current_period_end });
  expect((await setup.server.get(`${root}/subscriptions/${setup.subscription}/change-requests/${requestId}`)).body.status).toBe("applied");
  const renewal = (await setup.server.get(`${root}/invoices/${after.latest_invoice}`)).body;
  expect(renewal).toMatchObject({ total_amount_atom: 1000, status: "paid" });
  expect(renewal.lines.map((line: { price: string | null }) => line.price)).toEqual([setup.basic]);

  // The customer's next visit: Basic, nothing pending, and the renewal among the invoices.
  await openPortal(page);
  await expect(card.getByText("Basic")).toBeVisible();
  await expect(card.getByTestId("pending-change")).toHaveCount(0);
  await expect(card.getByTestId("next-invoice")).toHaveAttribute("data-atoms", "1000");
  await page.getByRole("link", { name: "Invoices" }).click();
  await expect(page.locator(`[data-testid="portal-invoice"][data-id="${after.latest_invoice}"]`)).toContainText(formatAtoms(1000, "usd", "en"));
});

test("the dashboard's customer page creates a portal link, shown once, that opens the customer's portal", async ({ page, browser }) => {
  const merchant = await signUp(page, "Link Co");
  const server = api(await createToken(page, merchant, "Link server"));
  const customer = await ok<{ email: string }>(server.post("/customers", { email: `link-${Date.now()}@example.com` }));
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers/${customer.id}`);
  const card = page.locator("section", { has: page.getByRole("heading", { name: "Customer portal" }) });
  await card.getByRole("button", { name: "Create portal link" }).click();
  const url = (await card.getByTestId("shown-once-value").textContent())!;
  expect(url).toMatch(/\/portal\/start\//);
  // Shown once: after a reload the page has no link to show.
  // The customer's browser, not the merchant's: the link opens their portal.
  const theirs = await browser.newContext();
  const portal = await theirs.newPage();
  await portal.goto(url);
  await expect(portal.getByRole("heading", { name: "Subscriptions" })).toBeVisible();
  await expect(portal.getByText("You have no subscriptions.")).toBeVisible();
  await portal.goto(`${baseUrl()}/portal/details`);
  await expect(portal.getByLabel("Email")).toHaveValue(customer.email);
  await theirs.close();
  await page.reload();
  await expect(card.getByRole("button", { name: "Create portal link" })).toBeVisible();
  await expect(card.getByTestId("shown-once-value")).toHaveCount(0);

  // The add-card link: the same single-use link, opening on the page where the customer saves a card.
  await card.getByRole("button", { name: "Create add-card link" }).click();
  await expect(card.getByText(/^Add-card link: copy it now/)).toBeVisible();
  const addCard = (await card.getByTestId("shown-once-value").textContent())!;
  expect(addCard).toMatch(/\/portal\/start\//);
  expect(addCard).not.toBe(url);
  const customerBrowser = await browser.newContext();
  const cardPage = await customerBrowser.newPage();
  await cardPage.goto(addCard);
  await expect(cardPage).toHaveURL(/\/portal\/payment-method$/);
  await expect(cardPage.getByRole("heading", { name: "Payment method", level: 1 })).toBeVisible();
  await customerBrowser.close();
});

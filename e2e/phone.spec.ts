import { expect, test, type Page } from "@playwright/test";
import { api, baseUrl, createToken, signUp, unreachableUrl } from "./fixtures";
import type { ApiPath } from "../tests/helpers/api-client";

/**
 * Every page of the dashboard at phone width (390 px) and at 1280 px: the page itself never
 * scrolls sideways (a wide table scrolls inside its own `overflow-x: auto` box), and at 390 px the
 * header stays within 120 px with a search box wide enough to use.
 */

/** A page, and what it shows once loaded: a text, or (a list) a link to an object's page. */
type PageToCheck = { name: string; path: string; shows: string | RegExp | { linkTo: string } };

/** A sandbox merchant with at least one of each object, and the pages that show them. */
async function merchantWithOneOfEach(page: Page): Promise<{ pages: PageToCheck[]; checkoutUrl: string }> {
  await signUp(page, "Acme Phone");
  // The sandbox account: it has the test clock, takes sandbox cards and hosts checkout.
  await page.getByLabel("Account").selectOption({ index: 1 });
  await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
  const accountId = new URL(page.url()).pathname.split("/")[2]!;
  const server = api(await createToken(page, { email: "", password: "", accountId }, "Phone server"));
  const created = async (path: ApiPath<"post">, body: unknown) => {
    const response = await server.post(path, body);
    expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(201);
    return response.body as { id: string; url?: string; latest_invoice?: string };
  };
  const first = async (path: ApiPath<"get">) => {
    const response = await server.get(path);
    expect(response.status).toBe(200);
    const item = (response.body as { items: { id: string }[] }).items[0];
    expect(item, path).toBeDefined();
    return item!.id;
  };

  const customer = await created("/customers", { email: "jenny.rosen@example.com", name: "Jenny Rosen" });
  const product = await created("/products", { name: "Pro plan", description: "Everything, billed monthly." });
  const price = await created("/prices", {
    product: product.id,
    nickname: "Pro monthly",
    currency: "usd",
    unit_amount_atom: 2000,
    type: "recurring",
    recurring: { interval: "month" },
  });
  const coupon = await created("/coupons", { name: "Launch", percent_off: 10, duration: "once" });
  const subscription = await created("/subscriptions", {
    customer: customer.id,
    items: [{ price: price.id }],
    default_payment_method: "pm_sandbox_succeeds",
  });
  const paymentIntent = (await created("/payment-intents", { amount_atom: 2500, currency: "usd", payment_method: "pm_sandbox_succeeds", confirm: true })).id;
  const payment = await first(`/payments?payment_intent=${paymentIntent}`);
  const refund = await created("/refunds", { payment, amount_atom: 500 });
  const session = await created("/checkout/sessions", {
    mode: "subscription",
    line_items: [{ price: price.id }],
    success_url: "http://127.0.0.1:9/thanks?session_id={CHECKOUT_SESSION_ID}",
  });
  const endpointUrl = await unreachableUrl();
  const endpoint = await created(`/${accountId}/webhook-endpoints`, { url: endpointUrl, events: ["*"] });
  const meter = await created("/meters", { event_name: "api_call", display_name: "API calls", aggregation: "sum" });
  const usage = await server.post("/usage-events", { event_name: "api_call", customer: customer.id, identifier: "phone-1", payload: { value: 5 } });
  expect(usage.status).toBe(200);
  const event = await first(`/${accountId}/events`);

  const base = `/accounts/${accountId}`;
  const pages: PageToCheck[] = [
    { name: "overview", path: base, shows: "Test clock (sandbox)" },
    { name: "customers", path: `${base}/customers`, shows: "jenny.rosen@example.com" },
    { name: "customer", path: `${base}/customers/${customer.id}`, shows: customer.id },
    { name: "subscriptions", path: `${base}/subscriptions`, shows: subscription.id },
    { name: "subscription", path: `${base}/subscriptions/${subscription.id}`, shows: subscription.id },
    { name: "invoices", path: `${base}/invoices`, shows: subscription.latest_invoice! },
    { name: "invoice", path: `${base}/invoices/${subscription.latest_invoice}`, shows: subscription.latest_invoice! },
    { name: "events", path: `${base}/events`, shows: event },
    { name: "event", path: `${base}/events/${event}`, shows: event },
    { name: "webhooks", path: `${base}/webhooks`, shows: endpointUrl },
    { name: "webhook", path: `${base}/webhooks/${endpoint.id}`, shows: endpointUrl },
    { name: "tokens", path: `${base}/tokens`, shows: "Phone server" },
    { name: "settings", path: `${base}/settings`, shows: "Settings" },
    { name: "meters", path: `${base}/meters`, shows: { linkTo: `${base}/meters/${meter.id}` } },
    { name: "meter", path: `${base}/meters/${meter.id}`, shows: meter.id },
    { name: "reference", path: "/reference", shows: "Billing Service API" },
  ];
  // The generic kinds: a list and one object's page each.
  for (const [kind, id] of [
    ["products", product.id],
    ["prices", price.id],
    ["coupons", coupon.id],
    ["payments", payment],
    ["payment-intents", paymentIntent],
    ["refunds", refund.id],
    ["checkout-sessions", session.id],
  ] as const) {
    pages.push({ name: kind, path: `${base}/${kind}`, shows: { linkTo: `${base}/${kind}/${id}` } }, { name: `${kind} object`, path: `${base}/${kind}/${id}`, shows: id });
  }
  return { pages, checkoutUrl: session.url! };
}

/** The elements that stick out of the viewport outside a box that scrolls or clips them, for the failure message. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    for (const element of document.querySelectorAll("body *")) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || (box.right <= width + 0.5 && box.left >= -0.5)) continue;
      let clipped = false;
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== "visible") clipped = true;
      }
      if (!clipped) found.push(`${element.tagName.toLowerCase()}.${String(element.className).slice(0, 60)} (${Math.round(box.left)}–${Math.round(box.right)})`);
    }
    return found.slice(0, 8);
  });
}

async function visit(page: Page, target: PageToCheck) {
  await page.goto(`${baseUrl()}${target.path}`);
  // In the page's content: at 390 px the header's navigation is folded away.
  const shown = typeof target.shows === "object" && "linkTo" in target.shows
    ? page.locator(`main a[href="${target.shows.linkTo}"]`)
    : page.getByRole("main").getByText(target.shows);
  await expect(shown.first()).toBeVisible();
  await expect(page.getByText(/^Loading.*…$/)).toHaveCount(0);
}

async function expectNoSideScroll(page: Page, width: number, name: string) {
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth, `${name} at ${width} px scrolls sideways: ${(await overflowing(page)).join("; ")}`).toBeLessThanOrEqual(width);
}

for (const width of [390, 1280]) {
  test(`every dashboard page fits ${width} px without sideways page scroll${width === 390 ? ", with a compact header and a usable search" : ""}`, async ({
    page,
    browser,
  }) => {
    // Thirty-odd pages on a busy machine: a generous bound, not a speed check.
    test.setTimeout(360_000);
    const { pages, checkoutUrl } = await merchantWithOneOfEach(page);
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });

    for (const target of pages) {
      await test.step(target.name, async () => {
        await visit(page, target);
        await expectNoSideScroll(page, width, target.name);
        if (width === 390 && target.path.startsWith("/accounts/")) {
          const header = await page.getByRole("banner").boundingBox();
          expect(header, "the dashboard header").not.toBeNull();
          expect(header!.height, `${target.name}: header height`).toBeLessThanOrEqual(120);
          const search = await page.getByRole("searchbox", { name: "Search" }).boundingBox();
          expect(search?.width ?? 0, `${target.name}: search width`).toBeGreaterThanOrEqual(200);
        }
      });
    }

    await test.step("the search box finds a customer", async () => {
      await page.goto(`${baseUrl()}${pages[0]!.path}`);
      const search = page.getByRole("searchbox", { name: "Search" });
      await search.fill("jenny.rosen");
      await search.press("Enter");
      await expect(page).toHaveURL(/\/customers\?q=jenny\.rosen$/);
      await expect(page.getByRole("link", { name: "jenny.rosen@example.com" }).first()).toBeVisible();
      await expectNoSideScroll(page, width, "search results");
    });

    if (width === 390) {
      await test.step("the menu opens the navigation and it leads to a page", async () => {
        await page.goto(`${baseUrl()}${pages[0]!.path}`);
        const nav = page.getByRole("navigation", { name: "Dashboard" });
        await expect(nav).toBeHidden();
        await page.getByRole("button", { name: "Menu" }).click();
        await expect(nav).toBeVisible();
        await expectNoSideScroll(page, width, "open menu");
        await nav.getByRole("link", { name: "Webhooks" }).click();
        await expect(page).toHaveURL(/\/webhooks$/);
        await expect(nav).toBeHidden();
      });
    }

    // Signed-out pages and the hosted checkout, in a fresh browser context (no session).
    const signedOut = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 } });
    try {
      const anonymous = await signedOut.newPage();
      for (const [name, url, shows] of [
        ["sign-in", `${baseUrl()}/signin`, /sign in/i],
        ["sign-up", `${baseUrl()}/signup`, "Create account"],
        ["checkout", checkoutUrl, "Acme Phone (sandbox)"],
      ] as const) {
        await test.step(name, async () => {
          await anonymous.goto(url);
          await expect(anonymous.getByText(shows).first()).toBeVisible();
          await expectNoSideScroll(anonymous, width, name);
        });
      }
    } finally {
      await signedOut.close();
    }
  });
}

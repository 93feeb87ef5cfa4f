import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";
import { apiRoot, type ApiPath } from "../tests/helpers/api-client";

test("the API reference renders every operation from the app alone, with no outside request", async ({ page, context }) => {
  // Every operation of the reference rendered and checked: 1.3–1.7 min on a slow 2-core machine,
  // past the 90 s default there once. A bound for hangs, not a speed check.
  test.setTimeout(300_000);
  const origin = new URL(baseUrl()).origin;
  const outside: string[] = [];
  const requested: string[] = [];
  // Every request the page makes passes here; anything for another origin is recorded and refused.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requested.push(url);
    if (new URL(url).origin !== origin && !url.startsWith("data:")) {
      outside.push(url);
      return route.abort();
    }
    return route.continue();
  });

  const document = (await (await page.request.get(`${apiRoot(origin)}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary: string; operationId: string; requestBody?: unknown }>>;
  };
  // The document lists an operation served with and without the account segment on both paths
  // (the second as `…ForTokenAccount`); the operations list (lib/server/operations-index.ts) is the rest.
  const documented = Object.values(document.paths).flatMap((item) => Object.values(item));
  const operations = documented.filter((operation) => !operation.operationId.endsWith("ForTokenAccount"));
  expect(operations.length).toBeGreaterThan(90);
  expect(documented.length).toBeGreaterThan(operations.length);

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${origin}/reference`);
  await expect(page.getByRole("heading", { level: 1, name: "Billing Service API" })).toBeVisible();
  // One entry per operation of the operations list, whatever the number of paths it is served on.
  await expect(page.getByTestId("operation")).toHaveCount(operations.length);
  await expect(page.getByTestId("base-url")).toHaveText(apiRoot(origin));
  // Sections are collapsed: the page is an index, not 110,000 px of operations.
  const height = await page.evaluate(() => window.document.documentElement.scrollHeight);
  expect(height).toBeLessThan(5_000);
  const listCustomers = page.locator("#listCustomers");
  await expect(listCustomers).toBeHidden();
  const customers = page.locator('[id="tag/customers"]');
  await customers.locator("summary").click();
  await expect(listCustomers.getByRole("heading", { name: "List customers" })).toBeVisible();
  // On its path without the account segment, noting the account-scoped one.
  await expect(listCustomers.getByTestId("operation-path")).toHaveText("/api/customers");
  await expect(listCustomers.getByTestId("scoped-path")).toContainText("/api/{account_id}/customers");
  await expect(listCustomers.getByText("limit", { exact: true })).toBeVisible();
  await expect(listCustomers.getByTestId("curl")).toContainText(`curl -X GET "${origin}/api/customers"`);
  await customers.locator("summary").click();
  await expect(listCustomers).toBeHidden();

  // Every curl example: the real origin, and a JSON body generated from the schema (never `{…}`).
  const curls = await page.getByTestId("curl").allTextContents();
  expect(curls).toHaveLength(operations.length);
  const withBody = operations.filter((operation) => operation.requestBody).length;
  const bodies = curls.flatMap((curl) => {
    expect(curl).toContain(`"${apiRoot(origin)}/`);
    const body = /-d '(.*)'$/s.exec(curl)?.[1];
    return body === undefined ? [] : [body];
  });
  expect(bodies).toHaveLength(withBody);
  for (const body of bodies) {
    expect(body).not.toContain("…}");
    expect(typeof JSON.parse(body.replaceAll("'\\''", "'"))).toBe("object");
  }

  // A link to a schema opens the collapsed schema section and lands on it.
  await page.goto(`${origin}/reference#listCustomers`);
  await expect(listCustomers.getByRole("heading", { name: "List customers" })).toBeVisible();
  await listCustomers.getByRole("link", { name: "CustomerList" }).click();
  await expect(page).toHaveURL(/#schema-CustomerList$/);
  await expect(page.locator("#schema-Customer").getByText("email", { exact: true }).first()).toBeVisible(); // the property (invoice_emails' items are formatted "email" too)
  // Deprecation links point at a tag section that exists, and open it.
  await page.goto(`${origin}/reference#tag/subscription-change-requests`);
  await expect(page.locator('[id="tag/subscription-change-requests"]')).toHaveAttribute("open", "");
  await expect(page.locator('[id="tag/subscription-change-requests"]').getByTestId("operation").first()).toBeVisible();
  // No controls unrelated to this API.
  for (const unrelated of [/ask ai/i, /deploy/i, /test request/i]) {
    await expect(page.getByRole("button", { name: unrelated })).toHaveCount(0);
    await expect(page.getByRole("link", { name: unrelated })).toHaveCount(0);
  }

  await page.waitForLoadState("networkidle");
  expect(requested.length).toBeGreaterThan(0);
  expect(outside).toEqual([]);
});

test("the reference's example bodies are real: sent as shown, the API creates the objects", async ({ page }) => {
  const origin = new URL(baseUrl()).origin;
  const merchant = await signUp(page);
  const server = api(await createToken(page, merchant, "Reference examples"));
  await page.goto(`${origin}/reference`);
  await expect(page.getByTestId("base-url")).toHaveText(apiRoot(origin));
  for (const operationId of ["createCustomer", "createProduct", "createCoupon", "createPaymentIntent"]) {
    const curl = (await page.locator(`[id="${operationId}"]`).getByTestId("curl").textContent()) ?? "";
    const [, method, url] = /^curl -X (\w+) "([^"]+)"/.exec(curl) ?? [];
    const body = /-d '(.*)'$/s.exec(curl)?.[1];
    expect(method, operationId).toBe("POST");
    expect(url, operationId).toMatch(new RegExp(`^${apiRoot(origin)}/`));
    expect(body, operationId).toBeDefined();
    // The path is the page's, known at run time only: the contract check still resolves and validates it.
    const created = await server.post(url!.slice(apiRoot(origin).length) as ApiPath<"post">, JSON.parse(body!));
    expect(created.status, `${operationId} ${body}: ${JSON.stringify(created.body)}`).toBe(201);
  }
});

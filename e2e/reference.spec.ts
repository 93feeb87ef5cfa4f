import { expect, test } from "@playwright/test";
import { baseUrl } from "./fixtures";

test("the API reference renders every operation from the app alone, with no outside request", async ({ page, context }) => {
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

  const document = (await (await page.request.get(`${origin}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary: string; operationId: string }>>;
  };
  const operations = Object.values(document.paths).flatMap((item) => Object.values(item));

  await page.goto(`${origin}/reference`);
  await expect(page.getByRole("heading", { level: 1, name: "Billing Service API" })).toBeVisible();
  // Every operation of the document is on the page, with its parameters and answers.
  await expect(page.getByTestId("operation")).toHaveCount(operations.length);
  const listCustomers = page.locator("#listCustomers");
  await expect(listCustomers.getByRole("heading", { name: "List customers" })).toBeVisible();
  await expect(listCustomers.getByText("/{account_id}/customers", { exact: true })).toBeVisible();
  await expect(listCustomers.getByText("limit", { exact: true })).toBeVisible();
  await expect(listCustomers.getByRole("link", { name: "CustomerList" })).toBeVisible();
  // Schema links land on the schema, whose fields are listed.
  await listCustomers.getByRole("link", { name: "CustomerList" }).click();
  await expect(page).toHaveURL(/#schema-CustomerList$/);
  await expect(page.locator("#schema-Customer").getByText("email", { exact: true })).toBeVisible();
  // Deprecation links point at a tag section that exists.
  await page.goto(`${origin}/reference#tag/subscription-change-requests`);
  await expect(page.locator('[id="tag/subscription-change-requests"]')).toBeVisible();
  // No controls unrelated to this API.
  for (const unrelated of [/ask ai/i, /deploy/i, /test request/i]) {
    await expect(page.getByRole("button", { name: unrelated })).toHaveCount(0);
    await expect(page.getByRole("link", { name: unrelated })).toHaveCount(0);
  }

  await page.waitForLoadState("networkidle");
  expect(requested.length).toBeGreaterThan(0);
  expect(outside).toEqual([]);
});

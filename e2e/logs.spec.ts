import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("Logs: an error's request_id opens its request, with redacted bodies, the events caused and a curl without the token", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Logs");
  const client = api(token);
  const created = await client.post(`/${merchant.accountId}/customers`, { email: "logged@example.com" });
  expect(created.status).toBe(201);
  const refused = await client.post(`/${merchant.accountId}/customers`, { email: "x@example.com", password: "hunter2-secret", token });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  const requestId = refused.body.request_id as string;

  // The list: both requests, coloured by status class, once the writer's batch has landed. The
  // error summary and the list are separate reads of one page load, so a batch landing between
  // them shows one without the other: a load counts once both show the error.
  const logs = `${baseUrl()}/accounts/${merchant.accountId}/logs`;
  await expect(async () => {
    await page.goto(logs);
    await expect(page.getByTestId("request-log-row").filter({ hasText: requestId })).toBeVisible({ timeout: 1000 });
    await expect(page.getByTestId("error-group").filter({ hasText: "createCustomer" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const errorRow = page.getByTestId("request-log-row").filter({ hasText: requestId });
  await expect(errorRow.locator("[data-status-class]")).toHaveAttribute("data-status-class", "client-error");
  await expect(page.getByTestId("request-log-row").filter({ hasText: created.headers.get("x-request-id")! }).locator("[data-status-class]")).toHaveAttribute(
    "data-status-class",
    "success",
  );

  // Filters live in the URL.
  await page.goto(`${logs}?status=4xx`);
  await expect(page.getByTestId("request-log-row")).toHaveCount(1);
  await expect(page.getByTestId("request-log-row")).toContainText(requestId);

  // Searching the error's request id opens its request.
  await page.getByRole("search").getByLabel("Search").fill(requestId);
  await page.getByRole("search").getByLabel("Search").press("Enter");
  await page.waitForURL(new RegExp(`/logs/${requestId}$`));
  await expect(page.getByTestId("request-id")).toHaveText(requestId);
  await expect(page.getByTestId("response-body")).toContainText(requestId);
  await expect(page.getByTestId("request-body")).toContainText("[redacted]");
  const shown = await page.locator("main").textContent();
  expect(shown).not.toContain(token);
  expect(shown).not.toContain("hunter2-secret");
  await expect(page.getByTestId("curl")).toContainText("$BILLING_SECRET_TOKEN");
  await expect(page.getByTestId("curl")).toContainText(`/customers`);

  // The successful request's page lists the event it caused.
  await page.goto(`${logs}/${created.headers.get("x-request-id")}`);
  await expect(page.getByRole("table", { name: "Events caused" })).toContainText("customer.created");
});

test("Logs: the dashboard's own reads add no errors, and the source filter tells them from API clients'", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Source");
  const created = await api(token).post(`/${merchant.accountId}/customers`, { email: "no-discount@example.com", name: "Ada No Discount" });
  expect(created.status).toBe(201);
  const apiRequest = created.headers.get("x-request-id")!;

  // A customer without a discount: the page says so, read from the customer (no 404 call).
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers/${created.body.id}`);
  await expect(page.getByText("No discount.")).toBeVisible();

  const logs = `${baseUrl()}/accounts/${merchant.accountId}/logs`;
  // The dashboard's reads of the customer page are logged as the dashboard's, once the batch has landed.
  await expect(async () => {
    await page.goto(`${logs}?source=dashboard&operation=getCustomer`);
    await expect(page.getByTestId("request-log-row").first()).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  for (const row of await page.getByTestId("request-log-row").all()) await expect(row).toContainText("Dashboard");

  // None of them failed.
  await page.goto(`${logs}?source=dashboard&status=4xx`);
  await expect(page.getByText("No requests match these filters.")).toBeVisible();
  await expect(page.getByText("No errors in the last 24 hours.")).toBeVisible();

  // API clients' requests are apart, with the picker showing the URL's choice.
  await page.goto(`${logs}?source=api`);
  await expect(page.getByLabel("Source")).toHaveValue("api");
  await expect(page.getByTestId("request-log-row").filter({ hasText: apiRequest })).toContainText("API");
  await expect(page.getByTestId("request-log-row").filter({ hasText: "getCustomer" })).toHaveCount(0);
});

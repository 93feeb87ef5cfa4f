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

  // The list: both requests, coloured by status class, once the writer's batch has landed.
  const logs = `${baseUrl()}/accounts/${merchant.accountId}/logs`;
  await expect(async () => {
    await page.goto(logs);
    await expect(page.getByTestId("request-log-row").filter({ hasText: requestId })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
  const errorRow = page.getByTestId("request-log-row").filter({ hasText: requestId });
  await expect(errorRow.locator("[data-status-class]")).toHaveAttribute("data-status-class", "client-error");
  await expect(page.getByTestId("request-log-row").filter({ hasText: created.headers.get("x-request-id")! }).locator("[data-status-class]")).toHaveAttribute(
    "data-status-class",
    "success",
  );
  await expect(page.getByTestId("error-group").filter({ hasText: "createCustomer" })).toBeVisible();

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

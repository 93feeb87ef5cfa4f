import { expect, test } from "@playwright/test";
import { api, createToken, signUp } from "./fixtures";

test("meters: the list, a meter's daily chart and latest events for a picked customer, and a customer's current usage", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server token");
  const server = api(token);

  // Two customers; the older one uses the API: 3 + 4 calls today, and one event of another meter.
  const jenny = await server.post("/customers", { email: "jenny@example.com" });
  expect(jenny.status).toBe(201);
  const other = await server.post("/customers", { email: "other@example.com" });
  expect(other.status).toBe(201);
  const meter = await server.post("/meters", { event_name: "api_call", display_name: "API calls", aggregation: "sum" });
  expect(meter.status).toBe(201);
  const storage = await server.post("/meters", { event_name: "storage", display_name: "Storage", aggregation: "max" });
  expect(storage.status).toBe(201);
  const meterId: string = meter.body.id;
  const batch = await server.post("/usage-events/batch", {
    events: [
      { event_name: "api_call", customer: jenny.body.id, identifier: "call-1", payload: { value: 3 } },
      { event_name: "api_call", customer: jenny.body.id, identifier: "call-2", payload: { value: 4, region: "eu" } },
      { event_name: "storage", customer: other.body.id, identifier: "gb-1", payload: { value: 9 } },
    ],
  });
  expect(batch.status).toBe(200);
  expect(batch.body.items.map((r: { status: string }) => r.status)).toEqual(["accepted", "accepted", "accepted"]);

  // The list, reached from the navigation.
  await page.getByRole("link", { name: "Meters", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}/meters$`));
  await expect(page.getByRole("heading", { name: "Meters" })).toBeVisible();
  const row = page.getByRole("table", { name: "Meters" }).getByRole("row").filter({ hasText: meterId });
  await expect(row).toContainText("api_call");
  await expect(row).toContainText("sum");
  await expect(row.getByText("active", { exact: true })).toBeVisible();

  // The meter's page: pick the customer; today's bar and total are their 7 calls, and the latest events are listed.
  await row.getByRole("link", { name: "API calls" }).click();
  await expect(page).toHaveURL(new RegExp(`/meters/${meterId}$`));
  await expect(page.getByRole("heading", { name: "API calls" })).toBeVisible();
  // The newest customer is picked first: no usage for them.
  await expect(page.getByText("No events of this meter for this customer.")).toBeVisible();
  await expect(page.getByTestId("usage-today")).toHaveText("0");
  await page.getByLabel("Customer").selectOption(jenny.body.id);
  await expect(page.getByTestId("usage-today")).toHaveText("7");
  const today = new Date().toISOString().slice(0, 10);
  await expect(page.getByRole("list", { name: "Usage per day" }).getByTitle(`${today}: 7`)).toBeVisible();
  await expect(page.getByRole("list", { name: "Usage per day" }).getByRole("listitem")).toHaveCount(30);
  const events = page.getByRole("table", { name: "Latest usage events" });
  await expect(events.getByRole("row").filter({ hasText: "call-2" })).toContainText('"region":"eu"');
  await expect(events.getByRole("row").filter({ hasText: "call-1" })).toContainText("3");

  // The customer's page shows the open period's usage of the meters they used, linked to the meter.
  await page.getByRole("link", { name: "Customers", exact: true }).click();
  await page.getByRole("link", { name: "jenny@example.com" }).first().click();
  await expect(page.getByRole("heading", { name: "jenny@example.com" })).toBeVisible();
  const usage = page.getByRole("table", { name: "Current usage" });
  const usageRow = usage.getByRole("row").filter({ hasText: "API calls" });
  await expect(usageRow.getByRole("cell").nth(1)).toHaveText("7");
  await expect(usage).not.toContainText("Storage");
  await usageRow.getByRole("link", { name: "API calls" }).click();
  await expect(page).toHaveURL(new RegExp(`/meters/${meterId}$`));
});

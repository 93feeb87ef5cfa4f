import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, signUp } from "./fixtures";

test("customers: the list, one customer's page, and its timeline", async ({ page }) => {
  const merchant = await signUp(page);
  const token = await createToken(page, merchant, "Server token");
  const server = api(token);

  // The merchant's server creates two customers.
  const jenny = await server.post("/customers", { email: "jenny@example.com", name: "Jenny Rosen", metadata: { plan: "pro" } });
  expect(jenny.status).toBe(201);
  const ravi = await server.post("/customers", { email: "ravi@example.com" });
  expect(ravi.status).toBe(201);

  // Both show in the list, reached from the navigation.
  await page.getByRole("link", { name: "Customers", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/accounts/${merchant.accountId}/customers$`));
  await expect(page.getByRole("heading", { name: "Customers" })).toBeVisible();
  const list = page.getByRole("table", { name: "Customers" });
  await expect(list).toContainText("jenny@example.com");
  await expect(list).toContainText("ravi@example.com");

  // One customer's page: its email as the heading, its id and fields.
  await list.getByRole("link", { name: "jenny@example.com" }).click();
  await expect(page).toHaveURL(new RegExp(`/customers/${jenny.body.id}$`));
  await expect(page.getByRole("heading", { name: "jenny@example.com" })).toBeVisible();
  await expect(page.getByTestId("customer-id")).toHaveText(jenny.body.id);
  await expect(page.getByText("Jenny Rosen", { exact: true })).toBeVisible();

  // Its timeline: the events page filtered to this customer.
  await page.getByRole("link", { name: "View timeline" }).click();
  await expect(page).toHaveURL(new RegExp(`/events\\?aggregate_id=${jenny.body.id}$`));
  const timeline = page.getByRole("table", { name: "Events" });
  await expect(timeline).toContainText("customer.created");
  // The entity is labelled by its name; its id is the link's target and title.
  const entity = timeline.getByRole("link", { name: "Jenny Rosen" }).first();
  await expect(entity).toHaveAttribute("title", new RegExp(`^${jenny.body.id}:`));
  await expect(timeline).not.toContainText("ravi@example.com");

  // An unknown id says so plainly.
  await page.goto(`${baseUrl()}/accounts/${merchant.accountId}/customers/cus_prod_00000000000000000000000000000`);
  await expect(page.getByRole("heading", { name: "No such customer" })).toBeVisible();
  await page.getByRole("link", { name: "Back to customers" }).click();
  await expect(page.getByRole("table", { name: "Customers" })).toContainText("ravi@example.com");
});

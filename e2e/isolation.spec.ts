import { expect, test } from "@playwright/test";
import { api, baseUrl, createToken, sessionApi, signUp } from "./fixtures";

test("another organization's user can neither see nor reach the first one's accounts", async ({ browser }) => {
  const firstContext = await browser.newContext();
  const first = await firstContext.newPage();
  const owner = await signUp(first, "First Co");
  const ownerToken = await createToken(first, owner, "Owner");
  const customer = (await api(ownerToken).post("/customers", { email: "private@example.com" })).body;
  const event = (await api(ownerToken).get(`/${owner.accountId}/events`)).body.items[0];
  const endpoint = (
    await api(ownerToken).post(`/${owner.accountId}/webhook-endpoints`, { url: "https://example.com/h", events: ["*"] })
  ).body;

  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  const intruder = await signUp(other, "Second Co");

  // The switcher lists only the intruder's own accounts.
  const options = await other.getByLabel("Account").locator("option").allTextContents();
  expect(options).toHaveLength(2);
  expect(options.join(" ")).not.toContain("First Co");

  // Pages of the first organization are not found.
  for (const path of [
    `/accounts/${owner.accountId}`,
    `/accounts/${owner.accountId}/events`,
    `/accounts/${owner.accountId}/events/${event.id}`,
    `/accounts/${owner.accountId}/webhooks/${endpoint.id}`,
    `/accounts/${owner.accountId}/tokens`,
  ]) {
    const response = await other.goto(`${baseUrl()}${path}`);
    expect(response?.status(), path).toBe(404);
    await expect(other.getByText(customer.id)).toHaveCount(0);
  }

  // Requests with the intruder's session cookie are refused.
  const intruderSession = await sessionApi(other);
  for (const path of [
    `/${owner.accountId}/events`,
    `/${owner.accountId}/events/${event.id}/full`,
    `/${owner.accountId}/webhook-endpoints`,
    `/${owner.accountId}/api-tokens`,
  ] as const) {
    expect((await intruderSession.get(path)).status, path).toBe(403);
  }
  const write = await intruderSession.post(`/${owner.accountId}/webhook-endpoints`, { url: "https://evil.example.com", events: ["*"] });
  expect(write.status).toBe(403);

  // And with the intruder's own API token.
  const intruderToken = await createToken(other, intruder, "Intruder");
  expect((await api(intruderToken).get(`/${owner.accountId}/events`)).status).toBe(403);
  expect((await api(intruderToken).get(`/${intruder.accountId}/events/${event.id}`)).status).toBe(404);

  await firstContext.close();
  await otherContext.close();
});

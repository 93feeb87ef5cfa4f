import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { baseUrl, signUp } from "./fixtures";

/**
 * Teams (docs/teams.md): an owner invites a colleague from Settings; the colleague opens the link
 * in their own browser, creates their password account and lands in the organization with the
 * invited role. A viewer is not offered what it cannot do.
 */
for (const width of [1280, 390]) {
  test(`teams at ${width} px: invite by link, join with the role, a viewer sees no Create button`, async ({ page, browser }) => {
    await page.setViewportSize({ width, height: 900 });
    const owner = await signUp(page, "Team Co");
    const settings = `${baseUrl()}/accounts/${owner.accountId}/settings`;
    await page.goto(settings);
    await expect(page.getByTestId("current-role")).toHaveText("Owner");
    await expect(page.getByRole("table", { name: "Members" })).toContainText(owner.email);

    const email = `invitee-${randomBytes(5).toString("hex")}@example.com`;
    const invite = page.getByRole("form", { name: "Invite a member" });
    await invite.getByLabel("Email").fill(email);
    await invite.getByLabel("Role").selectOption({ label: "Viewer" });
    await invite.getByRole("button", { name: "Create invitation" }).click();
    const link = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
    expect(link).toMatch(/\/invite\/inv_[0-9a-z]{32}$/);
    const invitations = page.getByRole("table", { name: "Invitations" });
    await expect(invitations.getByRole("row").filter({ hasText: email })).toContainText("Viewer");

    // The invitee: another browser, no session.
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const invitee = await context.newPage();
    await invitee.goto(link);
    await expect(invitee.getByRole("heading", { name: "Join Team Co" })).toBeVisible();
    await expect(invitee.getByTestId("invited-role")).toHaveText("Viewer");
    await expect(invitee.getByLabel("Email")).toHaveValue(email);
    await expect(invitee.getByRole("button", { name: "Create account and join" })).toBeEnabled();
    await invitee.getByLabel("Your name").fill("Vera Viewer");
    await invitee.getByLabel("Password").fill(`pw-${randomBytes(9).toString("base64url")}`);
    await invitee.getByRole("button", { name: "Create account and join" }).click();
    await invitee.waitForURL(new RegExp(`/accounts/${owner.accountId}$`));
    await expect(invitee.getByRole("heading", { name: "Overview" })).toBeVisible();

    await invitee.goto(`${baseUrl()}/accounts/${owner.accountId}/settings`);
    await expect(invitee.getByTestId("current-role")).toHaveText("Viewer");
    await expect(invitee.getByRole("form", { name: "Invite a member" })).toHaveCount(0);
    await invitee.goto(`${baseUrl()}/accounts/${owner.accountId}/customers`);
    await expect(invitee.getByRole("heading", { name: "Customers" })).toBeVisible();
    await expect(invitee.getByRole("button", { name: "New customer" })).toHaveCount(0);
    await invitee.goto(`${baseUrl()}/accounts/${owner.accountId}/tokens`);
    await expect(invitee.getByRole("heading", { name: "API tokens" })).toBeVisible();
    await expect(invitee.getByRole("button", { name: "Create token" })).toHaveCount(0);

    // The link was single use; the owner sees the new member and no open invitation.
    await invitee.goto(link);
    await expect(invitee.getByText("This invitation link does not work")).toBeVisible();
    await context.close();
    await page.goto(settings);
    await expect(page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: email })).toBeVisible();
    await expect(page.getByText("No open invitations.")).toBeVisible();
    await page.goto(`${baseUrl()}/accounts/${owner.accountId}/customers`);
    await expect(page.getByRole("button", { name: "New customer" })).toBeVisible();
  });
}

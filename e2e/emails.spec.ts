import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { simpleParser, type ParsedMail } from "mailparser";
import { api, baseUrl, createToken, signUp } from "./fixtures";

/**
 * The links of received emails open and work in Chromium (docs/emails.md). The app under test has
 * no SMTP_URL, so it writes each message as `<BILLING_DATA_DIR>/mail/<eml_id>.eml`; the setup
 * (e2e/global-setup.ts, scripts/e2e-deployment.ts) gives it a mail directory of its own and names
 * it to the suite in E2E_MAIL_DIR. The message read is the one the email log names, as sent.
 */
function mailDirectory(): string {
  const directory = process.env.E2E_MAIL_DIR;
  if (!directory) throw new Error("E2E_MAIL_DIR must name the mail directory of the app under test (set by npm run test:e2e and test:e2e:deployment).");
  return directory;
}

type Server = ReturnType<typeof api>;

/** The one email of `type` about `filter` once the log says it was sent, parsed from its .eml file. */
async function receivedEmail(server: Server, filter: string, type: string): Promise<ParsedMail> {
  let id = "";
  await expect
    .poll(
      async () => {
        const page = (await server.get(`/emails?${filter}&type=${type}`)).body;
        id = page.items?.[0]?.id ?? "";
        return page.items?.map((email: { status: string }) => email.status);
      },
      { timeout: 30_000 },
    )
    .toEqual(["sent"]);
  return simpleParser(await readFile(path.join(mailDirectory(), `${id}.eml`)));
}

const linkOf = (mail: ParsedMail, pattern: RegExp) => {
  const link = pattern.exec(mail.text ?? "")?.[0];
  expect(link, mail.text).toBeDefined();
  expect(mail.html).toContain(`href="${link}"`);
  return link!;
};

test("emails: a send_invoice invoice made in the dashboard is emailed, its hosted link opens and pays; the portal sign-in link signs the customer in once", async ({ page, browser }) => {
  const merchant = await signUp(page, "Mailed Goods");
  // The sandbox account, where the hosted page pays with the sandbox's test payment methods.
  await page.getByLabel("Account").selectOption({ index: 1 });
  await expect(page.getByRole("status").filter({ hasText: "Sandbox" })).toBeVisible();
  const accountId = new URL(page.url()).pathname.split("/")[2]!;
  const server = api(await createToken(page, { ...merchant, accountId }, "Emails server"));
  const base = `${baseUrl()}/accounts/${accountId}`;
  expect((await server.post("/account-settings", { business_name: "Mailed Goods Ltd", support_email: "help@mailed.test" })).status).toBe(200);
  const customer = (await server.post("/customers", { email: "lena@example.com", name: "Lena Berg" })).body;

  // The brand colour, set in Settings with the seller's details.
  await page.goto(`${base}/settings`);
  const seller = page.getByRole("form", { name: "Seller details" });
  await seller.getByLabel("Brand colour").fill("#12ab34");
  await seller.getByRole("button", { name: "Save seller details" }).click();
  await expect(page.getByText("Saved. Invoices finalized from now on")).toBeVisible();
  expect((await server.get("/account-settings")).body.brand_color).toBe("#12ab34");
  // Settings → Emails: the final dunning notice has its switch, on by default, like every type.
  const emails = page.getByRole("form", { name: "Email settings" });
  const finalNotice = emails.getByLabel("Final dunning notice (the last payment retry failed)");
  await expect(finalNotice).toHaveValue("on");
  await finalNotice.selectOption("off");
  await emails.getByRole("button", { name: "Save email settings" }).click();
  await expect.poll(async () => (await server.get("/account-settings")).body.email_types_disabled).toEqual(["final_notice"]);

  // A send_invoice invoice from the dashboard's form: days until due are asked only for that method.
  await page.goto(`${base}/invoices`);
  await page.getByRole("button", { name: "New invoice" }).click();
  const form = page.getByRole("form", { name: "New invoice" });
  await form.getByLabel("Customer").selectOption(customer.id);
  await expect(form.getByLabel("Days until due")).toHaveCount(0);
  await form.getByLabel("Collection").selectOption("send_invoice");
  await form.getByLabel("Days until due").fill("14");
  await form.getByLabel("Line: custom amount").fill("80.00");
  await form.getByLabel("Line: description").fill("Framing");
  await form.getByRole("button", { name: "Create draft invoice" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/invoices/in_[a-z]+_[0-9a-z]+$`));
  const draftId = page.url().split("/").pop()!;
  await expect(page.getByText("Email the invoice (send_invoice), due 14 days after finalization")).toBeVisible();
  expect((await server.get(`/invoices/${draftId}`)).body).toMatchObject({ collection_method: "send_invoice", days_until_due: 14 });
  const invoice = (await server.post(`/invoices/${draftId}/finalize`)).body;
  expect(invoice.status).toBe("open");

  const invoiceMail = await receivedEmail(server, `invoice=${invoice.id}`, "invoice");
  expect(invoiceMail.subject).toBe(`Invoice ${invoice.number} from Mailed Goods Ltd`);
  expect(invoiceMail.html).toContain("background:#12ab34");
  expect(invoiceMail.html).toContain('href="mailto:help@mailed.test"');
  const hostedLink = linkOf(invoiceMail, /https?:\/\/\S+\/invoice\/[A-Za-z0-9_-]+/);
  expect(hostedLink).toBe(invoice.hosted_invoice_url);

  // The customer, signed out, opens the emailed link and pays.
  const context = await browser.newContext();
  const customerPage = await context.newPage();
  try {
    await customerPage.goto(hostedLink);
    await expect(customerPage.getByRole("heading", { name: `Invoice ${invoice.number}` })).toBeVisible();
    await expect(customerPage.getByText("Framing")).toBeVisible();
    await expect(customerPage.getByTestId("invoice-status")).toHaveAttribute("data-status", "open");
    await customerPage.getByRole("button", { name: /^Pay/ }).click();
    await expect(customerPage.getByTestId("invoice-status")).toHaveAttribute("data-status", "paid");
    expect((await server.get(`/invoices/${invoice.id}`)).body.status).toBe("paid");

    // The account's portal page: the customer asks for a link, the email carries it, it signs in once.
    await customerPage.goto(`${baseUrl()}/portal/sign-in/${accountId}`);
    await customerPage.getByTestId("sign-in-email").fill("LENA@example.com");
    await customerPage.getByRole("button", { name: "Email me a sign-in link" }).click();
    await expect(customerPage.getByTestId("sign-in-sent")).toBeVisible();
    const portalMail = await receivedEmail(server, `customer=${customer.id}`, "portal_link");
    expect(portalMail.subject).toBe("Your sign-in link for Mailed Goods Ltd");
    const portalLink = linkOf(portalMail, /https?:\/\/\S+\/portal\/start\/[A-Za-z0-9_-]{43}/);
    await customerPage.goto(portalLink);
    await expect(customerPage).toHaveURL(`${baseUrl()}/portal`);
    await expect(customerPage.getByRole("heading", { name: "Subscriptions" })).toBeVisible();

    // Single use: in another browser the same link is refused.
    const other = await browser.newContext();
    try {
      const again = await other.newPage();
      await again.goto(portalLink);
      await expect(again).toHaveURL(/\/refused$/);
    } finally {
      await other.close();
    }
  } finally {
    await context.close();
  }
});

import { and, desc, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { accounts, customers, emails, invoices, prices } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { canSend } from "@/lib/invoices/rules";
import { one } from "@/lib/rows";
import { effectiveInvoicePrefix } from "@/lib/account-settings/prefix";
import { enqueueEmail } from "@/lib/email-outbox/enqueue";
import { emailLocale, type EmailLocale } from "@/lib/email-outbox/wording";
import { brandingOf, renderEmail, type EmailRow } from "./render";
import { sampleEmail } from "./samples";
import { EMAIL_TYPES, type EmailStatus, type EmailType } from "@/lib/email-outbox/types";

export async function getEmail({ ctx, input }: Verb<{ id: string }>): Promise<EmailRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(emails)
    .where(and(eq(emails.accountId, ctx.accountId), eq(emails.id, input.id)));
  if (!row) throw notFound("email", input.id);
  return row;
}

/** Newest first; `customer` and `invoice` walk their own `(account, …, created)` indexes. */
export async function listEmails({
  ctx,
  input,
}: Verb<Page & { customer?: string; invoice?: string; type?: EmailType; status?: EmailStatus }>): Promise<{ rows: EmailRow[] } & PageInfo> {
  const where = and(
    eq(emails.accountId, ctx.accountId),
    input.customer ? eq(emails.customerId, input.customer) : undefined,
    input.invoice ? eq(emails.invoiceId, input.invoice) : undefined,
    input.type ? eq(emails.type, input.type) : undefined,
    input.status ? eq(emails.status, input.status) : undefined,
  );
  return pageOf(emails, where, input);
}

export async function previewEmail({ ctx, input }: Verb<{ id: string }>): Promise<{ row: EmailRow; html: string; text: string }> {
  const row = await getEmail({ ctx, input });
  const rendered = await renderEmail(ctx, row);
  return { row, html: rendered.html, text: rendered.text };
}

const isEmailType = (value: string): value is EmailType => (EMAIL_TYPES as readonly string[]).includes(value);

/**
 * An email type rendered with sample facts and the account's branding (samples.ts), in `locale`
 * (else the account's default). Reads the account and its newest price's currency (the
 * sample amount's; USD without a price); writes nothing.
 */
export async function previewEmailTemplate({
  ctx,
  input,
}: Verb<{ type: string; locale?: EmailLocale }>): Promise<{ type: EmailType; locale: EmailLocale; subject: string; html: string; text: string }> {
  const { type } = input;
  if (!isEmailType(type)) throw new ServiceError("not_found", `No such email template: '${type}'. The email types are: ${EMAIL_TYPES.join(", ")}.`);
  const db = await getDb();
  const account = one(await db.select().from(accounts).where(eq(accounts.id, ctx.accountId)));
  const [newest] = await db
    .select({ currency: prices.currency })
    .from(prices)
    .where(eq(prices.accountId, ctx.accountId))
    .orderBy(desc(prices.created), desc(prices.id))
    .limit(1);
  const locale = input.locale ?? emailLocale(account.defaultLocale);
  const sample = sampleEmail({
    type,
    locale,
    branding: brandingOf(account),
    invoicePrefix: effectiveInvoicePrefix(account),
    currency: newest?.currency ?? "usd",
    now: ctx.now(),
  });
  return { type, locale, ...sample };
}

/** A cause key of its own per request: each call is a new email; an Idempotency-Key replays the first. */
const requestCause = (requestId: string | undefined) => `request:${requestId ?? newId("email")}`;

async function queued(tx: Parameters<Parameters<typeof withChangeTransaction>[0]>[0], ctx: Verb<unknown>["ctx"], id: string | null, type: EmailType) {
  if (id === null) throw new ServiceError("conflict", `The '${type}' email type is switched off in the account's email settings.`);
  tx.emailsAfterCommit();
  return one(await tx.select().from(emails).where(and(eq(emails.accountId, ctx.accountId), eq(emails.id, id))));
}

/** Queues the invoice email (PDF and hosted link) to the invoice's customer and their extra invoice recipients. */
export async function sendInvoice({ ctx, input }: Verb<{ id: string }>): Promise<EmailRow> {
  return withChangeTransaction(async (tx) => {
    const [found] = await tx
      .select({ invoice: invoices, email: customers.email, invoiceEmails: customers.invoiceEmails })
      .from(invoices)
      .innerJoin(customers, eq(customers.id, invoices.customerId))
      .where(and(eq(invoices.accountId, ctx.accountId), eq(invoices.id, input.id)));
    if (!found) throw notFound("invoice", input.id);
    const { invoice } = found;
    if (!canSend(invoice)) {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' is ${invoice.status}: only a finalized invoice can be sent.`);
    }
    const id = await enqueueEmail(tx, ctx, {
      type: "invoice",
      to: [found.email, ...found.invoiceEmails],
      causeKey: requestCause(ctx.requestId),
      locale: invoice.document?.locale,
      number: invoice.number ?? invoice.id,
      customerId: invoice.customerId,
      invoiceId: invoice.id,
    });
    return queued(tx, ctx, id, "invoice");
  });
}

/** Queues the settings page's test email. */
export async function sendTestEmail({ ctx, input }: Verb<{ to: string }>): Promise<EmailRow> {
  return withChangeTransaction(async (tx) => {
    const id = await enqueueEmail(tx, ctx, { type: "test", to: [input.to], causeKey: requestCause(ctx.requestId), locale: null, number: "" });
    return queued(tx, ctx, id, "test");
  });
}

import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { BALANCE_TRANSACTION_TYPES } from "./statuses";
import { Currency, DateTime } from "@/lib/schemas";

export { BALANCE_TRANSACTION_TYPES };

/** A manual adjustment's amount: signed, never 0 (a credit is positive, a debit negative). */
const SignedAtoms = z
  .int({ error: "Must be an integer number of atomic units (cents for usd), up to ±(2^53 - 1)." })
  .min(-Number.MAX_SAFE_INTEGER)
  .max(Number.MAX_SAFE_INTEGER)
  .refine((value) => value !== 0, "Must not be 0.");

export const BalanceTransactionCreateInput = z
  .strictObject({
    amount_atom: SignedAtoms.meta({
      description: "Positive: credit the customer (lowers their next invoice); negative: a debit (added to their next invoice).",
      example: 1500,
    }),
    currency: Currency,
    description: z.string().min(1).max(500).meta({ description: "Why: shown in the ledger.", example: "Goodwill credit for the outage of 3 March" }),
  })
  .meta({ id: "BalanceTransactionCreateInput" });

export const CustomerBalanceTransaction = z
  .object({
    id: z.string().meta({ example: "cbtxn_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("customer_balance_transaction"),
    customer: z.string(),
    currency: z.string(),
    amount_atom: z.number().int().meta({ description: "The change of the balance: positive credits the customer, negative debits." }),
    ending_balance_atom: z.number().int().meta({ description: "The customer's balance in this currency after this transaction." }),
    type: z.enum(BALANCE_TRANSACTION_TYPES).meta({
      description:
        "`adjustment` (by hand), `applied_to_invoice` (finalization used the balance), `credit_note` (a post-payment credit note's `credit_amount_atom`), `proration` (the unused time a subscription change request's net decrease credits: its `proration_credit_atom`), `invoice_voided` (a void gave back what its invoice's finalization applied: the opposite of that invoice's `applied_to_invoice`).",
    }),
    description: z.string().nullable(),
    invoice: z.string().nullable(),
    credit_note: z.string().nullable(),
    subscription_change_request: z.string().nullable().meta({ description: "For `proration`: the change request (`scr_…`) whose net decrease it credits." }),
    livemode: z.boolean(),
    created: DateTime,
  })
  .meta({ id: "CustomerBalanceTransaction" });

export const CustomerBalanceTransactionList = listEnvelopeSchema(CustomerBalanceTransaction, "CustomerBalanceTransactionList");

export const BalanceTransactionListQuery = PaginationQuery.extend({
  currency: Currency.optional().meta({ description: "Only transactions in this currency." }),
});

export type CustomerBalanceTransactionObject = z.input<typeof CustomerBalanceTransaction>;

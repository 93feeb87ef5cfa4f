// Pure (no imports): the database schema and the API schema both read it.

/** What moved a customer's balance. */
export const BALANCE_TRANSACTION_TYPES = ["adjustment", "applied_to_invoice", "credit_note", "proration", "invoice_voided"] as const;

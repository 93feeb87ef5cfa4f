// Pure (no server imports): the API's schema and the dashboard's filters read this one list.

export const INVOICE_STATUSES = ["draft", "open", "paid", "void", "uncollectible"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

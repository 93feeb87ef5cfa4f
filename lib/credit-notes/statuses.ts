// Pure (no imports): the API schema, the database schema and the dashboard read them.

export const CREDIT_NOTE_REASONS = ["duplicate", "fraudulent", "order_change", "product_unsatisfactory"] as const;
export const CREDIT_NOTE_STATUSES = ["issued", "void"] as const;
export const CREDIT_NOTE_TYPES = ["pre_payment", "post_payment"] as const;

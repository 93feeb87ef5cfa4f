import { describeBillingProperty } from "./billing-property";

// Shard 2 of the billing property test's 10,000 sequences (tests/property/billing-property.ts).
describeBillingProperty(1);

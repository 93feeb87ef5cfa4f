import { stripeProcessor } from "./stripe";
import type { ProcessorDefinition } from "./types";

/*
 * The processors an account can connect: a new one is a folder beside ./stripe and one entry here.
 * No database here, so the API's schemas (lib/payment-processor/schema.ts) can read it.
 */

// Each definition's credentials type is its own; only the definition reads them back.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const PROCESSORS: readonly ProcessorDefinition<any>[] = [stripeProcessor];

import type { z } from "zod";
import type { ApiToken as ApiTokenSchema, ApiTokenWithSecret as ApiTokenWithSecretSchema } from "@/lib/api-tokens/schema";

/** The API's shapes, as sent over the wire (type-only imports: no server code reaches the client). */
export type ApiToken = z.output<typeof ApiTokenSchema>;
export type ApiTokenWithSecret = z.output<typeof ApiTokenWithSecretSchema>;
export type ApiTokenKind = ApiToken["kind"];

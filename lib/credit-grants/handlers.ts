import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import {
  createCreditGrantOperation,
  getCreditGrantOperation,
  listCreditGrantApplicationsOperation,
  listCreditGrantsOperation,
  voidCreditGrantOperation,
} from "./operations";
import { serializeCreditGrant, serializeCreditGrantApplication } from "./serialize";
import { createCreditGrant, getCreditGrant, listCreditGrantApplications, listCreditGrants, voidCreditGrant } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts is generated from lib/server/operations-index.ts). */
export const creditGrantHandlers = [
  handle(createCreditGrantOperation, async ({ ctx, body }) => serializeCreditGrant(await createCreditGrant({ ctx, input: body }), ctx.livemode)),
  handle(listCreditGrantsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCreditGrants({ ctx, input: query });
    return envelope(rows.map((row) => serializeCreditGrant(row, ctx.livemode)), info);
  }),
  handle(getCreditGrantOperation, async ({ ctx, params }) => serializeCreditGrant(await getCreditGrant({ ctx, input: { id: params.credit_grant_id } }), ctx.livemode)),
  handle(listCreditGrantApplicationsOperation, async ({ ctx, params }) => {
    const rows = await listCreditGrantApplications({ ctx, input: { id: params.credit_grant_id } });
    return envelope(rows.map(serializeCreditGrantApplication), { total: rows.length, hasMore: false });
  }),
  handle(voidCreditGrantOperation, async ({ ctx, params }) => serializeCreditGrant(await voidCreditGrant({ ctx, input: { id: params.credit_grant_id } }), ctx.livemode)),
];

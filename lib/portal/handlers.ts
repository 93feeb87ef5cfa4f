import { handle } from "@/lib/api/handler";
import { createPortalSessionOperation, getPortalConfigurationOperation, updatePortalConfigurationOperation } from "./operations";
import { createPortalSession, serializePortalSession } from "./sessions";
import { getPortalConfiguration, serializePortalConfiguration, updatePortalConfiguration } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const portalHandlers = [
  handle(getPortalConfigurationOperation, async ({ ctx }) => serializePortalConfiguration(await getPortalConfiguration({ ctx, input: {} }), ctx.livemode)),
  handle(updatePortalConfigurationOperation, async ({ ctx, body }) =>
    serializePortalConfiguration(await updatePortalConfiguration({ ctx, input: body }), ctx.livemode),
  ),
  handle(createPortalSessionOperation, async ({ ctx, body }) => {
    const { row, url } = await createPortalSession({ ctx, input: body });
    return serializePortalSession(row, url, ctx.livemode);
  }),
];

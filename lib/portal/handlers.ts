import { handle } from "@/lib/api/handler";
import { clientAddress, limitPortalSignIn, throttledMessage } from "@/lib/api/rate-limit";
import { ServiceError } from "@/lib/errors";
import { createPortalSessionOperation, getPortalConfigurationOperation, requestPortalSignInOperation, updatePortalConfigurationOperation } from "./operations";
import { requestPortalSignIn } from "./sign-in";
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
  handle(requestPortalSignInOperation, async ({ params, body, request }) => {
    const throttled = await limitPortalSignIn(clientAddress(request), params.account, body.email);
    if (throttled) throw new ServiceError("rate_limited", throttledMessage(throttled), { error_code: "rate_limited" });
    const { message } = await requestPortalSignIn({ accountId: params.account, email: body.email });
    return { object: "portal_sign_in" as const, message };
  }),
];

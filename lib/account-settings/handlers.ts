import { handle } from "@/lib/api/handler";
import { getAccountSettingsOperation, updateAccountSettingsOperation } from "./operations";
import { serializeAccountSettings } from "./serialize";
import { getAccountSettings, updateAccountSettings } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const accountSettingsHandlers = [
  handle(getAccountSettingsOperation, async ({ ctx }) => serializeAccountSettings(await getAccountSettings({ ctx, input: {} }))),
  handle(updateAccountSettingsOperation, async ({ ctx, body }) => serializeAccountSettings(await updateAccountSettings({ ctx, input: body }))),
];

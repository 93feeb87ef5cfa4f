import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { TestClock, TestClockAdvanceInput } from "./schema";

const tag = "Test clock";

export const getTestClockOperation = defineOperation({
  operationId: "getTestClock",
  method: "GET",
  path: "/{account_id}/test-clock",
  unscopedPath: "/test-clock",
  summary: "Retrieve the account's clock",
  description: "The account's current time and the next time-driven transition. Live accounts always show real time.",
  tag,
  access: "secret",
  permission: needs("settings", "read"),
  response: { status: 200, description: "The clock.", schema: TestClock },
});

export const advanceTestClockOperation = defineOperation({
  operationId: "advanceTestClock",
  method: "POST",
  path: "/{account_id}/test-clock/advance",
  unscopedPath: "/test-clock/advance",
  summary: "Advance a sandbox account's time",
  description:
    "Moves the sandbox account's time forward to `to`, stopping at each instant where something falls due (trial ends, `invoice.upcoming`, renewals, dunning retries, overdue invoices, checkout expiry) and running it there, in time order. The account's time then keeps running from `to`. Sandbox accounts only (403 on live accounts); `to` must be after the account's current time (422).",
  tag,
  access: "secret",
  permission: needs("settings", "write"),
  role: "developer",
  body: TestClockAdvanceInput,
  response: { status: 200, description: "The clock after the advance.", schema: TestClock },
  errors: [403, 409, 422],
});

export const testClockOperations = [getTestClockOperation, advanceTestClockOperation];

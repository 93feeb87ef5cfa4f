import { afterAll } from "vitest";
import { killLeftoverServers } from "../helpers/server";

// Registered before the file's own hooks, so (hooks after tests run in reverse) this runs after
// them: whatever server a failed or timed-out test did not stop is killed with its file, not left
// running for the rest of the run.
afterAll(async () => {
  const leftovers = await killLeftoverServers();
  if (leftovers.length > 0) console.error(`Killed ${leftovers.length} server(s) this file left running:\n${leftovers.map((command) => `  ${command}`).join("\n")}`);
});

import { describe, expect, it } from "vitest";
import { backgroundWorkSettled, trackBackgroundWork } from "@/lib/clock/background-work";

/** A promise and the function that settles it, to decide from the test when work ends. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

/** Whether `promise` has settled once everything queued so far has run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("a test clock's wait for the work its stops started (lib/clock/background-work.ts)", () => {
  it("waits for the account's work, work added meanwhile included, and not for another account's", async () => {
    const first = deferred();
    const other = deferred();
    trackBackgroundWork("acct_a", first.promise);
    trackBackgroundWork("acct_b", other.promise);
    const waiting = backgroundWorkSettled("acct_a");
    expect(await hasSettled(waiting)).toBe(false);
    // The first charge's outcome starts another before it ends (a retry): the wait covers it too.
    const second = deferred();
    trackBackgroundWork("acct_a", second.promise);
    first.resolve();
    expect(await hasSettled(waiting)).toBe(false);
    // A failure is its owner's to handle: the wait only needs it ended.
    second.promise.catch(() => undefined);
    second.reject(new Error("declined"));
    expect(await hasSettled(waiting)).toBe(true);
    // acct_b's work is still pending; nothing of acct_a is.
    expect(await hasSettled(backgroundWorkSettled("acct_b"))).toBe(false);
    expect(await hasSettled(backgroundWorkSettled("acct_a"))).toBe(true);
    other.resolve();
    expect(await hasSettled(backgroundWorkSettled("acct_b"))).toBe(true);
  });
});

describe("the wait's bound", () => {
  it("gives up after its bound, saying so, and leaves the work running", async () => {
    const stuck = deferred();
    trackBackgroundWork("acct_c", stuck.promise);
    expect(await backgroundWorkSettled("acct_c", 20)).toBe(false);
    stuck.resolve();
    expect(await backgroundWorkSettled("acct_c", 20)).toBe(true);
  });
});

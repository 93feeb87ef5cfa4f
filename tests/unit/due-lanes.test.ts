import { describe, expect, it } from "vitest";
import { runEach } from "@/lib/clock/due";
import { ServiceError } from "@/lib/errors";

/*
 * The clock's runner of due items (lib/clock/due.ts `runEach`): lanes run side by side up to the
 * concurrency, the items of one lane one after another in order. Each item here is a promise the
 * test settles by hand, so what runs at once is observed, not timed.
 */

type Started = { id: string; finish: (changed: boolean) => void; fail: (error: unknown) => void };

function harness() {
  const started: Started[] = [];
  const running = new Set<string>();
  let waiters: Array<() => void> = [];
  const runOne = (id: string) =>
    new Promise<boolean>((resolve, reject) => {
      running.add(id);
      const done = () => running.delete(id);
      started.push({ id, finish: (changed) => (done(), resolve(changed)), fail: (error) => (done(), reject(error)) });
      for (const wake of waiters) wake();
      waiters = [];
    });
  /** Resolves once `n` items have started (the runner's microtasks have run). */
  const startedCount = async (n: number) => {
    while (started.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    await Promise.resolve();
  };
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { started, running, runOne, startedCount, settle };
}

describe("runEach: lanes side by side, a lane's items in order", () => {
  it("runs up to `concurrency` lanes at once and never two items of one lane", async () => {
    const h = harness();
    const items = [
      { id: "a1", lane: "A" },
      { id: "b1", lane: "B" },
      { id: "a2", lane: "A" },
      { id: "c1", lane: "C" },
      { id: "a3", lane: "A" },
      { id: "d1", lane: "D" },
    ];
    const result = runEach(items, h.runOne, 3);
    await h.startedCount(3);
    await h.settle();
    // Three lanes at once, each with its first item; lane D waits for a free worker.
    expect([...h.running].sort()).toEqual(["a1", "b1", "c1"]);
    h.started.find((s) => s.id === "a1")!.finish(true);
    await h.startedCount(4);
    await h.settle();
    // A's next item follows its first, in order, never beside it.
    expect([...h.running].sort()).toEqual(["a2", "b1", "c1"]);
    h.started.find((s) => s.id === "b1")!.finish(false);
    await h.startedCount(5);
    await h.settle();
    expect([...h.running].sort()).toEqual(["a2", "c1", "d1"]);
    for (const id of ["a2", "c1", "d1"]) h.started.find((s) => s.id === id)!.finish(true);
    await h.startedCount(6);
    h.started.find((s) => s.id === "a3")!.finish(true);
    // Counted: those that changed something (b1 did not).
    expect(await result).toBe(5);
    expect(h.started.filter((s) => s.id.startsWith("a")).map((s) => s.id)).toEqual(["a1", "a2", "a3"]);
  });

  it("bare ids share one lane: one at a time, in order, whatever the concurrency", async () => {
    const h = harness();
    const result = runEach(["x", "y", "z"], h.runOne, 8);
    for (const [index, id] of ["x", "y", "z"].entries()) {
      await h.startedCount(index + 1);
      await h.settle();
      expect([...h.running]).toEqual([id]);
      h.started[index]!.finish(true);
    }
    expect(await result).toBe(3);
  });

  it("a conflict skips its item (it stays due) and the lane goes on", async () => {
    const h = harness();
    const result = runEach([{ id: "a1", lane: "A" }, { id: "a2", lane: "A" }], h.runOne, 4);
    await h.startedCount(1);
    h.started[0]!.fail(new ServiceError("conflict", "invoice_locked"));
    await h.startedCount(2);
    h.started[1]!.finish(true);
    expect(await result).toBe(1);
  });

  it("any other error: nothing more starts, what runs finishes, then the error propagates", async () => {
    const h = harness();
    const items = [{ id: "a1", lane: "A" }, { id: "b1", lane: "B" }, { id: "b2", lane: "B" }, { id: "c1", lane: "C" }];
    const result = runEach(items, h.runOne, 2);
    await h.startedCount(2);
    const outage = new Error("database gone");
    h.started.find((s) => s.id === "a1")!.fail(outage);
    await h.settle();
    // b1 is still running: the runner waits for it, and starts neither b2 nor c1.
    let finished = false;
    void result.catch(() => (finished = true));
    await h.settle();
    expect(finished).toBe(false);
    h.started.find((s) => s.id === "b1")!.finish(true);
    await expect(result).rejects.toBe(outage);
    expect(h.started.map((s) => s.id).sort()).toEqual(["a1", "b1"]);
  });
});

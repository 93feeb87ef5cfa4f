import { inAmbientTransaction, type AmbientOutcome } from "@/db/ambient";
import { databaseKind, getDb } from "@/db/client";
import { ServiceError } from "@/lib/errors";
import {
  assertUsableKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  reserveIdempotencyKey,
  storedKey,
  type Reservation,
} from "./service";

export type Answer = { status: number; body: string };
type KeyInput = { accountId: string; key: string; fingerprint: string };
type ProblemOf = (error: ServiceError) => { status: number; retryable?: unknown };

/** How long a repeat waits for the first request with its key before answering 409. */
const REPEAT_WAIT_MS = 5_000;

/**
 * Runs a POST at most once per Idempotency-Key: a repeat with the same request replays the first
 * answer (success or a problem the domain raised) with `Idempotent-Replayed: true`. Retryable
 * conflicts and unexpected failures leave the key unused, so that the retry runs again.
 *
 * On PostgreSQL the reservation, every change of the request and the stored answer commit in one
 * transaction (db/ambient.ts): a request that dies at any point, process and all, leaves neither
 * its change nor its key behind, and a committed change always has its answer to replay. A repeat
 * arriving meanwhile waits for the first (up to REPEAT_WAIT_MS, then 409 `idempotency_key_in_use`).
 * The embedded database (one connection, one process) keeps the reservation as its own row with
 * a lease (IDEMPOTENCY_LEASE_MS).
 */
export async function runIdempotently(
  sent: KeyInput,
  execute: () => Promise<Answer>,
  problemOf: ProblemOf,
  headers: Headers,
): Promise<Answer> {
  assertUsableKey(sent.key);
  const input = { ...sent, key: storedKey(sent.key) };
  if ((await databaseKind()) === "embedded") return runWithLease(input, execute, problemOf, headers);
  return inAmbientTransaction(await getDb(), async (): Promise<AmbientOutcome<Answer>> => {
    let reservation: Reservation;
    try {
      reservation = await reserveIdempotencyKey({ ...input, waitMs: REPEAT_WAIT_MS });
    } catch (error) {
      return { commit: false, error };
    }
    if (reservation.kind === "replay") {
      headers.set("Idempotent-Replayed", "true");
      return { commit: true, value: { status: reservation.status, body: reservation.body } };
    }
    let answer: Answer;
    try {
      answer = await execute();
    } catch (error) {
      if (!(error instanceof ServiceError)) return { commit: false, error };
      const problem = problemOf(error);
      // A retryable conflict (invoice_locked, PARTIAL_APPLY_RETRYABLE, …) asks for the same request
      // again: keep what it did (a retry resumes from there), not the key.
      if (problem.retryable === true) {
        return (await stored(() => releaseIdempotencyKey(input))) ? { commit: true, error } : { commit: false, error };
      }
      answer = { status: problem.status, body: JSON.stringify(problem) };
    }
    // A transaction that cannot store the answer (a statement failed inside it) changed nothing:
    // a problem the domain raised is still this request's answer; anything else is a failure.
    if (await stored(() => completeIdempotencyKey({ ...input, ...answer }))) return { commit: true, value: answer };
    return answer.status >= 400 ? { commit: false, value: answer } : { commit: false, error: new Error("The answer could not be stored.") };
  });
}

async function stored(write: () => Promise<void>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch {
    return false;
  }
}

/** The embedded database: reserve (committed, with a lease), run, then store the answer. */
async function runWithLease(input: KeyInput, execute: () => Promise<Answer>, problemOf: ProblemOf, headers: Headers): Promise<Answer> {
  const reservation = await reserveIdempotencyKey(input);
  if (reservation.kind === "replay") {
    headers.set("Idempotent-Replayed", "true");
    return { status: reservation.status, body: reservation.body };
  }
  let answer: Answer;
  try {
    answer = await execute();
  } catch (error) {
    if (!(error instanceof ServiceError) || problemOf(error).retryable === true) {
      await releaseIdempotencyKey(input);
      throw error;
    }
    const problem = problemOf(error);
    answer = { status: problem.status, body: JSON.stringify(problem) };
  }
  await completeIdempotencyKey({ ...input, ...answer });
  return answer;
}

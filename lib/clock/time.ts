/** The clock of an account whose time runs `offsetMs` ahead of the real clock (0 unless a sandbox test clock moved it). */
export function accountClock(offsetMs: number): () => Date {
  return () => new Date(Date.now() + offsetMs);
}

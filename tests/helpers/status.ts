/**
 * The status of a page or route, its body read to the end: a body left unread holds its connection
 * open, and the server's shutdown waits for it (a lint rule forbids `(await fetch(…)).status`).
 * No vitest import: the benchmarks use it too.
 */
export async function statusOf(url: string | URL, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
}

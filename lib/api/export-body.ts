import { Readable } from "node:stream";
import { createGzip } from "node:zlib";

/** What an export answers (lib/api/export.ts): a stream of CSV or NDJSON, gzip when asked. */

export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const MEDIA_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
};

/** What an export handler returns; `handle()` answers it as a stream (gzip when asked). */
export class ExportBody {
  constructor(
    readonly format: ExportFormat,
    readonly filename: string,
    readonly stream: ReadableStream<Uint8Array>,
  ) {}

  get contentType(): string {
    return MEDIA_TYPES[this.format];
  }
}

/**
 * Next.js drops a route handler's `Content-Encoding` (it assumes a fetched body it may have
 * decoded): an export's gzip body names its coding in this header instead, which the HTTP guard
 * (lib/http/guard.ts) sends as `Content-Encoding`.
 */
export const CONTENT_ENCODING_HEADER = "x-billing-content-encoding";

/**
 * Gzip through node:zlib, as a web stream. Each chunk is passed on once the gzip has taken the one
 * before (backpressure kept), and a chunk marked by releaseOnceWritten is released once the gzip has
 * consumed it: the gzip's bytes, not the export's, are what the socket writes.
 */
export function gzipped(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const gzip = createGzip();
  const input = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        gzip.write(chunk, (error) => {
          if (takeReleasable(chunk)) release(chunk);
          if (error) reject(error);
          else resolve();
        });
      }),
    close: () => new Promise<void>((resolve) => gzip.end(resolve)),
    abort: (reason) => void gzip.destroy(reason instanceof Error ? reason : new Error(String(reason))),
  });
  // A failure on either side ends both: the client's going away (the gzip destroyed) cancels the export.
  stream.pipeTo(input).catch((error: unknown) => gzip.destroy(error instanceof Error ? error : new Error(String(error))));
  return Readable.toWeb(gzip) as ReadableStream<Uint8Array>;
}

/** Whether the client takes gzip (`Accept-Encoding: gzip`, not refused with `q=0`). */
export function acceptsGzip(request: Request): boolean {
  const header = request.headers.get("accept-encoding") ?? "";
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "x-gzip") return false;
    const q = params.map((param) => param.trim()).find((param) => param.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * Chunks of an export whose memory is released as soon as the socket has written them
 * (releaseWrittenChunks, from the HTTP guard), not when a garbage collection finds them.
 */
const RELEASABLE = Symbol.for("billing-service.export-releasable");
// One set per process: Next.js bundles this module into the routes that mark and, apart, into the
// instrumentation's HTTP guard that releases.
const releasable = ((globalThis as typeof globalThis & { [RELEASABLE]?: WeakSet<Uint8Array<ArrayBuffer>> })[RELEASABLE] ??= new WeakSet());

/**
 * Marks an export's chunk to be released once written, when it is the whole of its buffer (a
 * small one made by Buffer is a slice of a shared pool, and is left to the collector). Every chunk
 * an export sends is made for it and held by nothing else (EncodedBatch). An export's batches are
 * megabytes of external memory: left to the collector, each 64 MB of them that young collections
 * have not yet freed starts a full collection, a pause of the whole server (docs/performance.md,
 * "Exports").
 */
export function releaseOnceWritten(chunk: Uint8Array): Uint8Array {
  const { buffer } = chunk;
  if (buffer instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === buffer.byteLength) releasable.add(chunk as Uint8Array<ArrayBuffer>);
  return chunk;
}

/** Whether `chunk` was marked by releaseOnceWritten, unmarking it: the caller releases it after its write. */
export function takeReleasable(chunk: unknown): chunk is Uint8Array<ArrayBuffer> {
  return chunk instanceof Uint8Array && releasable.delete(chunk as Uint8Array<ArrayBuffer>);
}

/** Frees a written chunk's memory now: its buffer is detached (nothing else holds it). */
export function release(chunk: Uint8Array<ArrayBuffer>): void {
  chunk.buffer.transfer(0);
}

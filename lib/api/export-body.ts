import { Duplex } from "node:stream";
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

/** Gzip through node:zlib, as a web stream (backpressure kept: pipeThrough waits on the gzip). */
export function gzipped(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return stream.pipeThrough(Duplex.toWeb(createGzip()) as unknown as TransformStream<Uint8Array, Uint8Array>);
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


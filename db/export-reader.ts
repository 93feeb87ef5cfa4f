import { Worker } from "node:worker_threads";

/**
 * The reader of an export's batches (firstRowBytes, db/client.ts): a worker thread with its own
 * postgres.js pool runs each batch's query and hands its bytes over to the server's thread.
 *
 * Why a thread (docs/performance.md, "Exports"): a batch is megabytes that only pass through. Read
 * on the server's thread, every byte of them is V8 external memory twice (the socket's reads and
 * postgres.js joining them into the row), and V8 starts a full collection of the server's whole
 * heap for each 64 MB of external memory that young collections have not yet freed: a pause of
 * every request in flight, dozens of times per million exported rows. Read here, those bytes
 * belong to the worker's own heap, collected on its own thread; the server's thread receives each
 * batch as one transferred buffer, which the HTTP guard releases once the socket has written it
 * (releaseOnceWritten, lib/api/export-body.ts).
 *
 * The worker's pool is small (two connections, for two exports at once) and opened on the first
 * export. It connects as the API's pool does: the same URL (postgres.js negotiates the URL's TLS
 * itself), the same statement limits, prepared statements only without a transaction pooler. The
 * socket watchdog (db/watchdog.ts) does not run in it: a batch that waits longer than
 * `batchWaitMs` (DATABASE_TIMEOUTS.hardMs) fails as the database being unavailable instead.
 */

/** One row's columns, each its bytes (null for NULL), the buffers the worker transferred. */
export type RowBytes = (Uint8Array<ArrayBuffer> | null)[];

export type ExportReaderOptions = {
  url: string;
  pooled: boolean;
  applicationName: string;
  connectSeconds: number;
  idleSeconds: number;
  /** Startup parameters (statement limits), as the API's pool sends them; none through a pooler. */
  connection: Record<string, string | number>;
  /** How long a batch may take before it fails as a database failure (the worker is not waited on further). */
  batchWaitMs: number;
};

/**
 * The worker's code, plain CommonJS run from this string (Next.js bundles the server; a worker
 * needs a script of its own). It finds postgres.js in the app's node_modules (`next start` runs in
 * the app's folder).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const postgres = require(require.resolve("postgres", { paths: [workerData.root] }));
const o = workerData.options;
const sql = postgres(o.url, {
  max: 2,
  prepare: !o.pooled,
  onnotice: () => {},
  connect_timeout: o.connectSeconds,
  idle_timeout: o.idleSeconds,
  max_lifetime: 30 * 60,
  keep_alive: 30,
  connection: { application_name: o.applicationName, ...o.connection },
});
// Each column copied into a buffer of its own: the row's bytes are views of postgres.js's message
// buffer, which holds the messages after them; only a whole buffer can be transferred.
const own = (bytes) => {
  if (bytes === null) return null;
  const copy = new Uint8Array(new ArrayBuffer(bytes.byteLength));
  copy.set(bytes);
  return copy;
};
parentPort.on("message", async ({ id, text, params }) => {
  try {
    const [row] = await sql.unsafe(text, params).raw();
    const columns = row ? row.map(own) : undefined;
    parentPort.postMessage({ id, columns }, columns ? columns.filter(Boolean).map((column) => column.buffer) : []);
  } catch (error) {
    const { name, message, code, severity, errno } = error ?? {};
    parentPort.postMessage({ id, error: { name, message: String(message ?? error), code, severity, errno } });
  }
});
`;

/** The worker's heap holds little (a batch's bytes are external memory): a young generation of 1 MB keeps it small. */
const WORKER_YOUNG_GENERATION_MB = 1;

type Pending = { resolve: (row: RowBytes | undefined) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
type Answer = { id: number; columns?: RowBytes; error?: { name?: string; message: string; code?: unknown; severity?: unknown; errno?: unknown } };

class ExportReader {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ended = false;

  constructor(
    private readonly options: ExportReaderOptions,
    onEnd: () => void,
  ) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { root: process.cwd(), options: { ...options, batchWaitMs: undefined } },
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // The server may exit with the worker idle: its pool's sockets do not hold the process.
    this.worker.unref();
    this.worker.on("message", (answer: Answer) => this.answer(answer));
    const fail = (error: Error) => {
      if (this.ended) return;
      this.ended = true;
      onEnd();
      for (const [id, pending] of this.pending) {
        this.pending.delete(id);
        clearTimeout(pending.timer);
        pending.reject(error);
      }
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(Object.assign(new Error(`the export reader ended (exit code ${code})`), { code: "CONNECTION_ENDED" })));
  }

  /** The first row of `text` with `params`, each column's bytes. */
  firstRow(text: string, params: unknown[]): Promise<RowBytes | undefined> {
    if (this.ended) return Promise.reject(Object.assign(new Error("the export reader ended"), { code: "CONNECTION_ENDED" }));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(Object.assign(new Error(`an export batch took longer than ${this.options.batchWaitMs} ms`), { code: "ETIMEDOUT" }));
      }, this.options.batchWaitMs);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, text, params });
    });
  }

  async end(): Promise<void> {
    this.ended = true;
    await this.worker.terminate();
  }

  private answer({ id, columns, error }: Answer): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    // The error's fields db/errors.ts reads (its SQLSTATE or socket code, its severity) come across.
    if (error) pending.reject(Object.assign(new Error(error.message), { name: error.name ?? "Error", code: error.code, severity: error.severity, errno: error.errno }));
    else pending.resolve(columns);
  }
}

// One reader per process, whatever the bundles that import this module (as db/client.ts's handle).
const READER = Symbol.for("billing-service.export-reader");
type GlobalWithReader = typeof globalThis & { [READER]?: ExportReader };

/** The process's export reader, started on first use (again after it ended). */
export function exportReader(options: ExportReaderOptions): ExportReader {
  const store = globalThis as GlobalWithReader;
  if (!store[READER]) {
    const reader = new ExportReader(options, () => {
      if (store[READER] === reader) delete store[READER];
    });
    store[READER] = reader;
  }
  return store[READER];
}

/** Ends the process's export reader, if one runs (closeDb). */
export async function endExportReader(): Promise<void> {
  const store = globalThis as GlobalWithReader;
  const reader = store[READER];
  delete store[READER];
  await reader?.end();
}

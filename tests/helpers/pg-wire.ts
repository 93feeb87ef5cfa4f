import { createServer, connect, type Server, type Socket } from "node:net";
import { freePort } from "./server";

/**
 * A loopback proxy in front of PostgreSQL that reads the frontend half of the wire protocol (the
 * messages a client sends; https://www.postgresql.org/docs/current/protocol-message-formats.html)
 * and counts what a write costs in database work: round trips (a client send after the server
 * answered: each one is a wait on the database), statements executed (Execute and simple Query
 * messages), and, while capturing, the statements in the order sent with their parameters, so that
 * a bare postgres.js script can replay the same write (bench/write-path.ts), and the round trips
 * of a transaction can be counted (tests/unit/postgres-begin-patch.test.ts).
 */

export type CapturedStatement = { connection: number; text: string; params: (string | null)[] };

type Connection = {
  id: number;
  /** Bytes of an incomplete frontend message, kept until the rest arrives. */
  pending: Buffer;
  /** The startup packet (no type byte) comes first; SSLRequest/GSSENCRequest are answered 'N' by the server and precede it. */
  started: boolean;
  /** Prepared statements by name ("" the unnamed one): Bind names them, Parse defines them. */
  statements: Map<string, string>;
  /** Set by Bind, consumed by Execute: what the next Execute runs. */
  bound: { text: string; params: (string | null)[] } | null;
  lastFromServer: boolean;
};

export class PgWireCounter {
  roundTrips = 0;
  statements = 0;
  private capturing: CapturedStatement[] | null = null;
  private server: Server | undefined;
  private nextConnection = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(readonly port: number) {}

  static async start(target: { host: string; port: number }): Promise<PgWireCounter> {
    const counter = new PgWireCounter(await freePort());
    const server = createServer((client) => counter.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(counter.port, "127.0.0.1", () => resolve());
    });
    counter.server = server;
    return counter;
  }

  /** The counters read and reset: what the database saw since the last call. */
  take(): { roundTrips: number; statements: number } {
    const taken = { roundTrips: this.roundTrips, statements: this.statements };
    this.roundTrips = 0;
    this.statements = 0;
    return taken;
  }

  /** The round trips of `work`'s second run: its first opens the pool's connections and prepares its statements. */
  async roundTripsOfRepeat(work: () => Promise<unknown>): Promise<number> {
    await work();
    this.take();
    await work();
    return this.take().roundTrips;
  }

  /** Statements executed while `work` runs, in the order the clients sent them. */
  async capture(work: () => Promise<unknown>): Promise<CapturedStatement[]> {
    this.capturing = [];
    try {
      await work();
      return this.capturing;
    } finally {
      this.capturing = null;
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    const connection: Connection = { id: ++this.nextConnection, pending: Buffer.alloc(0), started: false, statements: new Map(), bound: null, lastFromServer: true };
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on("close", () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      if (connection.lastFromServer) this.roundTrips++;
      connection.lastFromServer = false;
      this.read(connection, chunk);
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      connection.lastFromServer = true;
      client.write(chunk);
    });
  }

  private read(connection: Connection, chunk: Buffer): void {
    let buffer = connection.pending.length > 0 ? Buffer.concat([connection.pending, chunk]) : chunk;
    while (true) {
      if (!connection.started) {
        if (buffer.length < 8) break;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) break;
        const code = buffer.readInt32BE(4);
        // SSLRequest (80877103) and GSSENCRequest (80877104) come before the startup packet.
        if (code !== 80877103 && code !== 80877104) connection.started = true;
        buffer = buffer.subarray(length);
        continue;
      }
      if (buffer.length < 5) break;
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) break;
      this.message(connection, String.fromCharCode(buffer[0]!), buffer.subarray(5, 1 + length));
      buffer = buffer.subarray(1 + length);
    }
    connection.pending = Buffer.from(buffer);
  }

  private message(connection: Connection, type: string, body: Buffer): void {
    if (type === "Q") {
      this.statements++;
      this.capturing?.push({ connection: connection.id, text: cString(body, 0).value, params: [] });
    } else if (type === "P") {
      const name = cString(body, 0);
      connection.statements.set(name.value, cString(body, name.next).value);
    } else if (type === "B") {
      const portal = cString(body, 0);
      const statement = cString(body, portal.next);
      connection.bound = { text: connection.statements.get(statement.value) ?? "", params: this.capturing ? bindParameters(body, statement.next) : [] };
    } else if (type === "E") {
      this.statements++;
      if (this.capturing && connection.bound) this.capturing.push({ connection: connection.id, ...connection.bound });
    }
  }
}

function cString(buffer: Buffer, at: number): { value: string; next: number } {
  const end = buffer.indexOf(0, at);
  return { value: buffer.toString("utf8", at, end), next: end + 1 };
}

/** A Bind's parameter values as text (postgres.js sends text; a binary one is kept as hex, which the replay does not use). */
function bindParameters(body: Buffer, at: number): (string | null)[] {
  const formats = body.readInt16BE(at);
  const formatCodes = Array.from({ length: formats }, (_, index) => body.readInt16BE(at + 2 + index * 2));
  let offset = at + 2 + formats * 2;
  const count = body.readInt16BE(offset);
  offset += 2;
  const params: (string | null)[] = [];
  for (let index = 0; index < count; index++) {
    const length = body.readInt32BE(offset);
    offset += 4;
    if (length < 0) {
      params.push(null);
      continue;
    }
    const binary = (formatCodes.length === 1 ? formatCodes[0] : formatCodes[index]) === 1;
    params.push(binary ? `\\x${body.toString("hex", offset, offset + length)}` : body.toString("utf8", offset, offset + length));
    offset += length;
  }
  return params;
}

import { connect, isIP, Socket } from "node:net";
import { connect as connectTls, type ConnectionOptions } from "node:tls";
import postgres from "postgres";

/**
 * Dead-socket detection for the postgres.js pool (docs/security.md, "No database").
 *
 * postgres.js has no query timeout: a query sent on a pooled socket whose peer vanished without a
 * FIN or RST (a dropped NAT mapping, a partitioned network, a frozen host) waits forever, and so
 * does every query queued behind it. PostgreSQL's statement_timeout cannot help, since its answer
 * never arrives. So the pool's sockets are made here and watched:
 *
 * - a socket that has been sent something and has read nothing for `suspectMs` makes the watchdog
 *   ask whether the database answers at all, on a fresh connection with its own short deadline;
 *   when it does not, and no watched socket has read anything meanwhile either, every pooled socket
 *   silent for `suspectMs` is destroyed (their queries fail with ETIMEDOUT, which the API answers
 *   with a 503) and the pool reconnects when it can;
 * - a socket silent for `hardMs` (longer than any statement may run on the server) is destroyed
 *   whatever the probe says: only that socket is dead, the database is fine.
 *
 * Legitimately slow statements are never cut while the database answers the probe.
 */
export type WatchdogSettings = { connectMs: number; suspectMs: number; hardMs: number; probeMs: number };

/**
 * The TLS the URL asks for (`sslmode`, as postgres.js reads it). The watchdog negotiates TLS itself
 * and hands postgres.js the TLS socket (postgres.js is then told `ssl: false`): a socket postgres.js
 * wrapped in TLS on its own would bypass the watched socket's `write` and `data`.
 */
export type TlsMode = false | "prefer" | "allow" | "require" | "verify-ca" | "verify-full";

export function tlsModeOf(url: string): { mode: TlsMode; direct: boolean } {
  const params = new URL(url).searchParams;
  const raw = params.get("sslmode") ?? params.get("ssl") ?? (params.get("sslrootcert") === "system" ? "verify-full" : null);
  const mode = !raw || raw === "disable" || raw === "false" ? false : raw === "true" ? "verify-full" : (raw as TlsMode);
  return { mode, direct: params.get("sslnegotiation") === "direct" };
}

/**
 * A socket that fails with `error` once postgres.js listens to it. postgres.js 3.4 leaks a
 * connection whose socket factory throws (it stays "connecting" for ever, and with all of them
 * leaked every query queues), while a socket that errors and closes takes the usual path: the
 * query is rejected with the error and the connection can be opened again.
 */
function failedSocket(error: unknown): Socket {
  const socket = new Socket();
  const fail = () => socket.destroy(error instanceof Error ? error : new Error(String(error)));
  // Only after postgres.js has written its startup message: a close while its write is pending
  // would leave that message in its buffer, to be prepended to the next connection's.
  const fallback = setTimeout(fail, 1_000);
  socket.write = (() => (clearTimeout(fallback), setImmediate(fail), true)) as Socket["write"];
  return socket;
}

/** PostgreSQL's SSLRequest message. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/** `pid`: the server process behind the socket (BackendKeyData), for asking the server about it. */
type Watched = { socket: Socket; lastRead: number; waitingSince: number | null; pid?: number };

class SilentSocket extends Error {
  readonly code = "ETIMEDOUT";
}

export class SocketWatchdog {
  private readonly sockets = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private lastProbe = 0;
  private nextKillAt = 0;

  constructor(
    private readonly url: string,
    private readonly settings: WatchdogSettings,
    /** False through a transaction-mode pooler, whose process ids are not the server's. */
    private readonly askAboutBackends: boolean,
    private readonly tls: { mode: TlsMode; direct: boolean } = tlsModeOf(url),
  ) {}

  /**
   * postgres.js's `socket` option: a connected socket, TLS negotiated when the URL asks for it,
   * all within the connect deadline; then watched.
   */
  readonly socket = async (options: { host: string[]; port: number[]; path?: string }): Promise<Socket> => {
    const raw = options.path ? connect(options.path) : connect(options.port[0]!, options.host[0]);
    const deadline = Date.now() + this.settings.connectMs;
    try {
      await this.within(deadline, raw, "connect");
      const socket = this.tls.mode && !options.path ? await this.secure(raw, options.host[0]!, deadline) : raw;
      this.watch(socket);
      return socket;
    } catch (error) {
      raw.destroy();
      return failedSocket(error);
    }
  };

  private async secure(raw: Socket, host: string, deadline: number): Promise<Socket> {
    const { mode, direct } = this.tls;
    if (!direct) {
      raw.write(SSL_REQUEST);
      const [answer] = await this.within(deadline, raw, "data");
      if ((answer as Buffer)[0] !== 0x53 /* S */) {
        if (mode === "prefer" || mode === "allow") return raw;
        throw Object.assign(new Error("The database does not accept TLS connections."), { code: "SSL_NOT_SUPPORTED" });
      }
    }
    // As postgres.js: sslmode require/allow/prefer encrypt without verifying the certificate.
    const options: ConnectionOptions = {
      socket: raw,
      servername: isIP(host) ? undefined : host,
      ...(direct ? { ALPNProtocols: ["postgresql"] } : {}),
      ...(mode === "require" || mode === "allow" || mode === "prefer" ? { rejectUnauthorized: false } : {}),
    };
    const socket = connectTls(options);
    await this.within(deadline, socket, "secureConnect");
    return socket;
  }

  /** The event's arguments, or CONNECT_TIMEOUT at the deadline, or the socket's error. */
  private within(deadline: number, socket: Socket, event: string): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(Object.assign(new Error("Timed out connecting to the database."), { code: "CONNECT_TIMEOUT" })),
        Math.max(0, deadline - Date.now()),
      );
      const onError = (error: Error) => (clearTimeout(timer), reject(error));
      socket.once(event, (...args: unknown[]) => {
        clearTimeout(timer);
        socket.off("error", onError);
        resolve(args);
      });
      socket.once("error", onError);
    });
  }

  private watch(socket: Socket): void {
    const watched: Watched = { socket, lastRead: Date.now(), waitingSince: null };
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      watched.waitingSince ??= Date.now();
      return write(...args);
    }) as Socket["write"];
    // The startup answer, read until BackendKeyData ('K') or ReadyForQuery ('Z').
    let startup: Buffer | null = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      watched.lastRead = Date.now();
      watched.waitingSince = null;
      if (!startup) return;
      startup = Buffer.concat([startup, chunk]);
      while (startup && startup.length >= 5 && startup.length >= 1 + startup.readInt32BE(1)) {
        const type: number | undefined = startup[0];
        if (type === 0x4b /* K */) watched.pid = startup.readInt32BE(5);
        startup = type === 0x4b || type === 0x5a /* Z */ ? null : startup.subarray(1 + startup.readInt32BE(1));
      }
    });
    // postgres.js 3.4 rejects the queries it has in hand when a socket errors, but one it sends
    // between the 'error' and the 'close' event (a reset idle connection, or one cut here) would
    // wait forever: its close handler fails pending queries only when the close carries no error.
    // The error has been reported by then, so the close is reported as a plain one.
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    socket.emit = ((event: string | symbol, ...args: unknown[]) => (event === "close" ? emit("close", false) : emit(event, ...args))) as Socket["emit"];
    socket.once("close", () => {
      this.sockets.delete(watched);
      if (this.sockets.size === 0) this.stop();
    });
    this.sockets.add(watched);
    this.timer ??= setInterval(() => this.check(), 500).unref();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    const now = Date.now();
    const suspects: Watched[] = [];
    for (const watched of this.sockets) {
      if (watched.waitingSince === null) continue;
      const silentFor = now - watched.waitingSince;
      if (silentFor >= this.settings.hardMs) this.kill(watched, silentFor);
      else if (silentFor >= this.settings.suspectMs) suspects.push(watched);
    }
    // One probe at a time, at most one every suspectMs: a long statement costs a connection per 2 s.
    if (suspects.length > 0 && !this.probing && now - this.lastProbe >= this.settings.suspectMs) void this.probe(suspects);
  }

  /**
   * Whether the database answers a fresh connection in time; if not, cut the silent sockets. If it
   * does, ask it about the suspects' server processes: one that is gone, or not running a statement
   * (it answered, and the answer was lost), belongs to a dead socket.
   */
  private async probe(suspects: Watched[]): Promise<void> {
    this.probing = true;
    const started = (this.lastProbe = Date.now());
    // No type fetch: postgres.js leaves that query's promise unhandled, and this probe runs
    // exactly when connections break (db/client.ts, fetchTypesOnce).
    const client = postgres(this.url, {
      max: 1,
      prepare: false,
      fetch_types: false,
      connect_timeout: Math.ceil(this.settings.probeMs / 1000),
      onnotice: () => {},
    });
    const pids = this.askAboutBackends ? suspects.flatMap((watched) => (watched.pid ? [watched.pid] : [])) : [];
    // A suspect still waiting on the same write after the answer is still waiting for nothing.
    const waitingSince = new Map(suspects.map((watched) => [watched, watched.waitingSince]));
    let timer: NodeJS.Timeout | undefined;
    try {
      const deadline = new Promise<"silent">((resolve) => (timer = setTimeout(() => resolve("silent"), this.settings.probeMs)));
      const query = pids.length
        ? client<{ pid: number }[]>`select pid from pg_stat_activity where pid = any(string_to_array(${pids.join(",")}, ',')::int[]) and state = 'active'`
        : client`select 1`;
      const answer = await Promise.race([query, deadline]);
      if (answer === "silent") return this.probeUnanswered(started);
      if (!pids.length) return;
      const running = new Set(answer.map((row) => Number(row.pid)));
      for (const watched of suspects) {
        const since = watched.waitingSince;
        if (watched.pid && !running.has(watched.pid) && this.sockets.has(watched) && since !== null && since === waitingSince.get(watched)) {
          this.kill(watched, Date.now() - since);
        }
      }
    } catch (error) {
      // An error *from the server* (too many connections, starting up) means it is there.
      if (!(error instanceof postgres.PostgresError)) this.probeUnanswered(started);
    } finally {
      clearTimeout(timer);
      void client.end({ timeout: 0 }).catch(() => {});
      this.probing = false;
    }
  }

  /**
   * The probe got no answer in time. A database that answered any socket watched here (every pool
   * of the process on that database: db/client.ts) since the probe began is there, only slow to
   * open a connection (a loaded host forks its backends late): the suspects are left to the next
   * probe. Otherwise it is gone, and so are the sockets silent since the suspicion began.
   */
  private probeUnanswered(started: number): void {
    for (const watched of this.sockets) if (watched.lastRead >= started) return;
    this.killSilentSince(started - this.settings.suspectMs);
  }

  /** Destroys every socket that has read nothing since `since` (idle ones too: the peer is gone). */
  private killSilentSince(since: number): void {
    for (const watched of this.sockets) {
      if (watched.lastRead <= since) this.kill(watched, Date.now() - (watched.waitingSince ?? watched.lastRead));
    }
  }

  /**
   * Sockets are destroyed one at a time, 20 ms apart: a query postgres.js moves onto another
   * socket that is already destroyed but not yet closed would leave its write pending in
   * postgres.js's buffer, corrupting that connection's next startup.
   */
  private kill(watched: Watched, silentFor: number): void {
    this.sockets.delete(watched);
    const error = new SilentSocket(`The database connection went silent for ${Math.round(silentFor / 1000)} s; closed it.`);
    const at = Math.max(Date.now(), this.nextKillAt);
    this.nextKillAt = at + 20;
    setTimeout(() => watched.socket.destroy(error), at - Date.now());
  }
}

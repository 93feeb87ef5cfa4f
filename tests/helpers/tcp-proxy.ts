import { createServer, connect, type Server, type Socket } from "node:net";
import { freePort } from "./server";

type Mode = "forward" | "stall" | "stall-new" | "blackhole";
/**
 * `dead`: forwards nothing more; `silenced`: blackholed, so never closed towards the client either;
 * `held`: opened during `stallNew`, its bytes held until restore.
 */
type Pair = { client: Socket; upstream: Socket | null; dead: boolean; silenced: boolean; held: boolean };

/**
 * A TCP proxy on loopback that a test can cut, blackhole, stall and restore: the database seen
 * through it becomes unreachable (connections refused, open ones reset), silent (nothing forwarded
 * and nothing closed, as when a network drops packets), or stalled (connections accepted, bytes held
 * and delivered late, as a frozen database host that thaws), and then reachable again on the same
 * port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<Pair>();
  private mode: Mode = "forward";
  /** A client's bytes that make the proxy reset that connection (`resetOn`), and how often it did. */
  private resetMatch: ((chunk: Buffer) => boolean) | null = null;
  resetsOnMatch = 0;
  /** Bytes held while stalled, in arrival order, delivered on restore. */
  private held: { pair: Pair; to: "client" | "upstream"; chunk: Buffer }[] = [];

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  /**
   * Forwards again, listening if it was not: bytes held by a stall are delivered first. Connections
   * blackholed before stay dead (silent, never closed): a peer that vanished does not come back, so
   * the client must give them up.
   */
  async restore(): Promise<void> {
    this.mode = "forward";
    for (const pair of this.pairs) pair.held = false;
    const held = this.held;
    this.held = [];
    for (const { pair, to, chunk } of held) this.send(pair, to, chunk);
    if (this.server) return;
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.server = server;
  }

  /**
   * Blackholes everything: open connections stop forwarding in both directions without closing,
   * new ones are accepted and never answered.
   */
  blackhole(): void {
    this.mode = "blackhole";
    this.held = [];
    for (const pair of this.pairs) pair.dead = pair.silenced = true;
  }

  /** Holds every byte, of open and new connections (accepted, connected upstream), until restore. */
  stall(): void {
    this.mode = "stall";
  }

  /**
   * Holds every byte of the connections opened from now on (accepted, connected upstream) until
   * restore, while the open ones carry on: a server that answers its sessions but is too loaded to
   * start a new one in time.
   */
  stallNew(): void {
    this.mode = "stall-new";
  }

  /** Resets every open connection (RST), keeps listening. */
  reset(): void {
    for (const pair of this.pairs) this.drop(pair);
    this.pairs.clear();
    this.held = [];
  }

  /** Resets any connection whose client sends bytes matching `match` (null: never again). */
  resetOn(match: ((chunk: Buffer) => boolean) | null): void {
    this.resetMatch = match;
  }

  /** Stops listening (new connections refused); open connections carry on. */
  async refuse(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops listening and resets every open connection. */
  async cut(): Promise<void> {
    const closing = this.refuse();
    this.reset();
    await closing;
  }

  private accept(client: Socket): void {
    const blackholed = this.mode === "blackhole";
    const pair: Pair = { client, upstream: null, dead: blackholed, silenced: blackholed, held: this.mode === "stall-new" };
    this.pairs.add(pair);
    client.on("error", () => this.drop(pair));
    client.on("close", () => this.drop(pair));
    client.on("data", (chunk: Buffer) => this.pass(pair, "upstream", chunk));
    if (pair.dead) return;
    const upstream = connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on("error", () => this.dropUpstream(pair));
    upstream.on("close", () => this.dropUpstream(pair));
    upstream.on("data", (chunk: Buffer) => this.pass(pair, "client", chunk));
  }

  private pass(pair: Pair, to: "client" | "upstream", chunk: Buffer): void {
    if (pair.dead) return;
    if (to === "upstream" && this.resetMatch?.(chunk)) {
      this.resetsOnMatch++;
      this.drop(pair);
      return;
    }
    if (this.mode === "stall" || pair.held) this.held.push({ pair, to, chunk });
    else this.send(pair, to, chunk);
  }

  private send(pair: Pair, to: "client" | "upstream", chunk: Buffer): void {
    const socket = to === "client" ? pair.client : pair.upstream;
    if (!pair.dead && socket && !socket.destroyed) socket.write(chunk);
  }

  /** The server side went away: so does the client's, unless blackholed (a vanished peer sends nothing). */
  private dropUpstream(pair: Pair): void {
    if (pair.silenced) pair.upstream?.destroy();
    else this.drop(pair);
  }

  private drop(pair: Pair): void {
    this.pairs.delete(pair);
    pair.dead = true;
    for (const socket of [pair.client, pair.upstream]) if (socket && !socket.destroyed) socket.resetAndDestroy();
  }
}

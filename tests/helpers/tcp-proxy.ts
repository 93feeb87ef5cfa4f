import { createServer, connect, type Server, type Socket } from "node:net";
import { freePort } from "./server";

/**
 * A TCP proxy on loopback that a test can cut, blackhole and restore: the database seen through it
 * becomes unreachable (connections refused, open ones reset), or silent (nothing forwarded and
 * nothing closed, as when a network drops packets), and then reachable again on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private silent = false;

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
   * New connections reach the target again. Connections blackholed before stay dead (silent,
   * never closed): a peer that vanished does not come back, so the client must give them up.
   */
  async restore(): Promise<void> {
    this.silent = false;
    if (this.server) return;
    const server = createServer((client) => {
      this.track(client);
      if (this.silent) return this.swallow(client);
      const upstream = connect(this.target.port, this.target.host);
      this.track(upstream);
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
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
    this.silent = true;
    for (const socket of this.sockets) this.swallow(socket);
  }

  /** Stops listening and resets every open connection. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }

  /** Reads and drops whatever arrives; forwards nothing; never closes. */
  private swallow(socket: Socket): void {
    socket.unpipe();
    socket.removeAllListeners("data");
    socket.on("data", () => {});
    socket.resume();
  }
}

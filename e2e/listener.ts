import { spawn, type ChildProcess } from "node:child_process";
import { Receiver, type ReceivedRequest, type Reply, type Responder } from "../tests/helpers/receiver";
import { PROJECT_ROOT } from "../tests/helpers/server";

/**
 * Events received the way a developer receives them from a deployment that cannot reach their
 * machine: `npm run listen` pulls the account's events from the API (a long poll, outbound only)
 * and POSTs each, signed with its session secret, to an HTTPS receiver on loopback. So it works
 * against any deployment, remote or not. Same interface as the direct receiver (`url` is where
 * listen forwards to, not a URL for an endpoint).
 */
export class Listener {
  private constructor(
    private readonly receiver: Receiver,
    private readonly child: ChildProcess,
    private readonly log: () => string,
    /** The session's signing secret, printed by listen's "Ready!" line. */
    readonly secret: string,
  ) {}

  static async start(options: { apiBaseUrl: string; token: string; events?: string[] }): Promise<Listener> {
    const receiver = await Receiver.start();
    const args = ["run", "--silent", "listen", "--", "--base-url", options.apiBaseUrl, "--token", options.token, "--forward-to", receiver.url];
    if (options.events) args.push("--events", options.events.join(","));
    // Its own process group, so close() ends npm, tsx and node together.
    const child = spawn("npm", args, { cwd: PROJECT_ROOT, env: process.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    try {
      const secret = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`listen did not get ready within 30 s:\n${output}`)), 30_000);
        const check = () => {
          const ready = /Ready! Your webhook signing secret is (whsec_\S+)/.exec(output);
          if (ready) {
            clearTimeout(timer);
            resolve(ready[1]!);
          }
        };
        child.stdout!.on("data", check);
        child.once("exit", (code) => {
          clearTimeout(timer);
          reject(new Error(`listen exited (${code}) before it was ready:\n${output}`));
        });
      });
      receiver.useSecret(secret);
      return new Listener(receiver, child, () => output, secret);
    } catch (error) {
      stop(child);
      await receiver.close();
      throw error;
    }
  }

  get url(): string {
    return this.receiver.url;
  }

  get requests(): ReceivedRequest[] {
    return this.receiver.requests;
  }

  /** listen signs with its session secret; another one makes every signature check fail. */
  useSecret(secret: string): this {
    this.receiver.useSecret(secret);
    return this;
  }

  respond(responder: Responder | Reply): this {
    this.receiver.respond(responder);
    return this;
  }

  /** As the receiver's, with listen's output in the error (the feed is polled, so allow for it). */
  async waitFor(count: number | ((requests: ReceivedRequest[]) => boolean), timeoutMs = 30_000): Promise<ReceivedRequest[]> {
    try {
      return await this.receiver.waitFor(count, timeoutMs);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nlisten's output:\n${this.log()}`);
    }
  }

  /** Waits for the first forwarded event of `type`. */
  async waitForType(type: string, timeoutMs?: number): Promise<ReceivedRequest> {
    const requests = await this.waitFor((received) => received.some((request) => (request.body as { type?: string })?.type === type), timeoutMs);
    return requests.find((request) => (request.body as { type?: string })?.type === type)!;
  }

  async close(): Promise<void> {
    stop(this.child);
    await this.receiver.close();
  }
}

function stop(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {
    // already gone
  }
}

import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer, type SMTPServerDataStream } from "smtp-server";
import { testTls } from "./tls";

/**
 * What the test SMTP server answers, for the next messages: accept; refuse every MAIL FROM with an
 * SMTP error; or be out of service (`outage`): new connections are refused at the greeting and
 * open ones at MAIL FROM, both with the code, as a server in maintenance or overloaded would.
 */
export type SmtpMode = { kind: "accept" } | { kind: "refuse"; code: number; message: string } | { kind: "outage"; code: number; message: string };

export type ReceivedMail = { envelopeTo: string[]; parsed: ParsedMail; raw: Buffer };

/**
 * A real SMTP server on loopback (the `smtp-server` package): STARTTLS with the run's test
 * certificate (tests/helpers/tls.ts), AUTH required (PLAIN/LOGIN with `user`/`password`). Every
 * accepted message is parsed with mailparser. `mode` makes it refuse MAIL FROM with a code (421: a
 * temporary failure, 550 for a recipient: permanent), as a real server under load or a
 * mailbox that does not exist would.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  /** Every MAIL FROM answered, accepted or refused. */
  attempts = 0;
  /** Connections refused at the greeting (an `outage`). */
  refusedConnections = 0;
  /** Connections opened by clients, refused or not. */
  connections = 0;
  mode: SmtpMode = { kind: "accept" };
  /** Recipients refused with 550 at RCPT TO, whatever the mode. */
  readonly rejectedRecipients = new Set<string>();
  private server!: SMTPServer;
  port = 0;
  /** While set, a message past this many received is held unanswered (`holdFrom`). */
  private holdAt: number | undefined;
  private readonly held: Array<{ accept: () => Promise<void>; refuse: (error: Error) => void }> = [];

  constructor(
    readonly user = "mailer",
    readonly password = "s3cret-pass",
  ) {}

  async start(): Promise<void> {
    const { certPath, keyPath } = testTls();
    this.server = new SMTPServer({
      secure: false,
      key: readFileSync(keyPath),
      cert: readFileSync(certPath),
      authMethods: ["PLAIN", "LOGIN"],
      // AUTH only over TLS (the default): the client must upgrade with STARTTLS first.
      onAuth: (auth, _session, callback) => {
        if (auth.username === this.user && auth.password === this.password) callback(null, { user: auth.username });
        else callback(new Error("Invalid username or password"));
      },
      onConnect: (_session, callback) => {
        this.connections++;
        if (this.mode.kind !== "outage") return callback();
        this.refusedConnections++;
        callback(Object.assign(new Error(this.mode.message), { responseCode: this.mode.code }));
      },
      onMailFrom: (_address, session, callback) => {
        this.attempts++;
        if (!session.secure) return callback(Object.assign(new Error("Must issue a STARTTLS command first"), { responseCode: 530 }));
        if (this.mode.kind !== "accept") return callback(Object.assign(new Error(this.mode.message), { responseCode: this.mode.code }));
        callback();
      },
      onRcptTo: (address, _session, callback) => {
        if (this.rejectedRecipients.has(address.address)) {
          return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
        }
        callback();
      },
      onData: (stream: SMTPServerDataStream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          const raw = Buffer.concat(chunks);
          const accept = () =>
            simpleParser(raw).then(
              (parsed) => {
                this.received.push({ envelopeTo: session.envelope.rcptTo.map((to) => to.address), parsed, raw });
                callback();
              },
              (error: Error) => callback(error),
            );
          if (this.holdAt !== undefined && this.received.length >= this.holdAt) this.held.push({ accept, refuse: callback });
          else void accept();
        });
      },
      logger: false,
    });
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => resolve());
    });
    // A client killed mid-session (the crash tests) resets its connection: not the server's failure.
    this.server.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") throw error;
    });
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  /** `smtp://` with credentials: nodemailer upgrades with STARTTLS, as the server requires. */
  get url(): string {
    return `smtp://${this.user}:${this.password}@127.0.0.1:${this.port}`;
  }

  /**
   * Once `count` messages are received, holds every further one at the end of its DATA, unanswered
   * (no 250, not received), until `release()`: a sender killed then is killed amid sends, however
   * fast it drains its queue. (A machine fast enough sent the last 5 of 200 emails between the
   * test's reading 195 and its kill.)
   */
  holdFrom(count: number): void {
    this.holdAt = count;
  }

  /** How many messages wait unanswered in a hold. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Receives the oldest held message and answers it 250, as if the hold had ended for it alone. */
  async acceptOneHeld(): Promise<void> {
    await this.held.shift()?.accept();
  }

  /** Ends a hold: each held message is answered 451 (try again later), never received. */
  release(): void {
    this.holdAt = undefined;
    for (const { refuse } of this.held.splice(0)) refuse(Object.assign(new Error("Try again later"), { responseCode: 451 }));
  }

  /** The messages received for `address`. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.envelopeTo.includes(address));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { connect, type Socket } from "node:net";
import nodemailer, { type Transporter } from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import type MimeNode from "nodemailer/lib/mime-node";
import SMTPPool from "nodemailer/lib/smtp-pool";
import { config } from "@/lib/config";
import type { RenderedEmail } from "./render";

/** What the transport answered: the SMTP server's reply, or where the file went. */
export type SendResult = { response: string };

/**
 * Where email goes: over SMTP to `SMTP_URL` (`smtp://` upgrades with STARTTLS when the server
 * offers it, `smtps://` is TLS from the start; credentials in the URL), else into
 * `<BILLING_DATA_DIR>/mail/<id>.eml` files (nodemailer's stream transport renders the same MIME
 * message), so a newcomer sees every email without a mail server.
 */
/** Pooled SMTP connections per process; the sender runs one lane per connection (lib/emails/send.ts). */
export const SMTP_MAX_CONNECTIONS = 8;

let transporter: { url: string | undefined; transport: Transporter } | null = null;

/**
 * A connection to the SMTP server with Nagle's algorithm off: nodemailer writes a message in
 * several pieces, and the last small one (the ending dot) otherwise waited for the server's
 * delayed ACK, about 40 ms a message on loopback. Handed to nodemailer already connected
 * (`getSocket`'s `connection`, which it upgrades itself for `smtps://` and STARTTLS).
 */
function connectWithoutDelay(options: SMTPPool.Options, callback: (error: Error | null, socketOptions?: { connection: Socket }) => void): void {
  const socket = connect({ host: options.host ?? "localhost", port: Number(options.port ?? (options.secure ? 465 : 587)), noDelay: true });
  const fail = (error: Error) => {
    socket.destroy();
    callback(error);
  };
  socket.setTimeout(SMTP_TIMEOUTS.connectionTimeout, () => fail(Object.assign(new Error("Connection timeout"), { code: "ETIMEDOUT" })));
  socket.once("error", fail);
  socket.once("connect", () => {
    socket.setTimeout(0);
    socket.off("error", fail);
    callback(null, { connection: socket });
  });
}

/** A dead server must fail an attempt well within the claim's lease (lib/emails/send.ts). */
const SMTP_TIMEOUTS = { connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 60_000 };

/** The pooled SMTP transport to `url` the sender uses (and the email bench's floor). */
export function smtpPool(url: string): Transporter {
  // The pool is made here, not by createTransport: given an object with a `url`, createTransport
  // keeps only what the URL says and drops every other option (nodemailer 7), pooling included.
  return nodemailer.createTransport(
    new SMTPPool({
      url,
      // Pooled: a backlog reuses its connections instead of a handshake per message.
      pool: true,
      maxConnections: SMTP_MAX_CONNECTIONS,
      // A connection lives as long as the server keeps it (nodemailer's default of 100 messages
      // would reconnect, TCP and EHLO and STARTTLS, every 100 of a backlog).
      maxMessages: Infinity,
      ...SMTP_TIMEOUTS,
      getSocket: connectWithoutDelay,
    }),
  );
}

function smtpTransport(): Transporter {
  const url = config().email.smtpUrl;
  if (transporter && transporter.url === url) return transporter.transport;
  const transport = url ? smtpPool(url) : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  transporter = { url, transport };
  return transport;
}

export function mailDirectory(): string {
  return path.resolve(config().dataDir, "mail");
}

/** A message composed to its MIME bytes, with the envelope SMTP sends it under. */
export type ComposedEmail = { envelope: MimeNode.Envelope; raw: Buffer };

/**
 * Composes the MIME message (headers, HTML and text, the attachments encoded) before it is handed
 * to the transport: the sender does this beside the other lanes, outside the one-at-a-time
 * transmission (lib/emails/send.ts), which then only moves bytes.
 */
export async function compose(email: RenderedEmail): Promise<ComposedEmail> {
  const message = new MailComposer({
    from: email.from,
    to: email.to,
    replyTo: email.replyTo ?? undefined,
    subject: email.subject,
    messageId: email.messageId,
    html: email.html,
    text: email.text,
    attachments: email.attachments,
  }).compile();
  return { envelope: message.getEnvelope(), raw: await message.build() };
}

export async function transmit(message: ComposedEmail, id: string): Promise<SendResult> {
  const info = await smtpTransport().sendMail({ envelope: message.envelope, raw: message.raw });
  if (config().email.smtpUrl) return { response: String(info.response) };
  const file = path.join(mailDirectory(), `${id}.eml`);
  await mkdir(mailDirectory(), { recursive: true });
  await writeFile(file, info.message as Buffer);
  return { response: `250 Written to ${path.relative(process.cwd(), file)} (no SMTP_URL)` };
}

/**
 * Whether a transport error is permanent: an SMTP 5xx reply. A 4xx reply, or no reply at all (the
 * server unreachable, a dropped connection), is temporary and retried.
 */
export function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === "number" && code >= 500;
}

export function responseOf(error: unknown): string {
  const response = (error as { response?: unknown }).response;
  if (typeof response === "string" && response) return response;
  return error instanceof Error ? error.message : String(error);
}

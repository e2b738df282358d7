/**
 * A real SMTP server for the tests (smtp-server, the same author's as nodemailer): it takes
 * every message, keeps its envelope and parsed content, and refuses recipients as a test asks.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Received {
  /** The envelope's recipients (RCPT TO), Bcc included. */
  to: string[];
  from: string;
  mail: ParsedMail;
}

export interface TestSmtp {
  url: string;
  received: Received[];
  /** Recipient address -> the reply RCPT TO gets instead of 250 (a 4xx tries again, a 5xx gives up). */
  refuse: Map<string, { code: number; message: string }>;
  /** Resolves once a message with this subject has arrived. */
  waitForSubject(subject: string): Promise<Received>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: Received[] = [];
  const refuse = new Map<string, { code: number; message: string }>();
  const waiters: { subject: string; resolve: (r: Received) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      const r = refuse.get(address.address);
      if (!r) return callback();
      callback(Object.assign(new Error(r.message), { responseCode: r.code }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const r = { to: session.envelope.rcptTo.map((a) => a.address), from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', mail };
          received.push(r);
          for (const w of waiters.filter((w) => w.subject === mail.subject)) w.resolve(r);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse,
    waitForSubject: (subject) => {
      const already = received.find((r) => r.mail.subject === subject);
      return already ? Promise.resolve(already) : new Promise((resolve) => waiters.push({ subject, resolve }));
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

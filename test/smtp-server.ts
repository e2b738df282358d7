/**
 * A real SMTP server for the tests (smtp-server, the same author's as nodemailer): it takes
 * every message, keeps its envelope and parsed content, refuses recipients as a test asks, and
 * answers slowly for the recipients a test names.
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
  /**
   * Recipient addresses whose messages the server answers only at `release()`: a slow mail server.
   * Such a message counts as received (and wakes the waits below) once its data has arrived.
   */
  slow: Set<string>;
  /** Answers the messages held for `slow` recipients and empties `slow`. */
  release(): void;
  /** Resolves once a message with this subject has arrived. */
  waitForSubject(subject: string): Promise<Received>;
  /** Resolves once `count` messages with this subject and recipient have arrived. */
  waitForCount(subject: string, recipient: string, count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const received: Received[] = [];
  const refuse = new Map<string, { code: number; message: string }>();
  const slow = new Set<string>();
  const held: (() => void)[] = [];
  const waiters: { done: () => boolean; resolve: () => void }[] = [];
  const until = (done: () => boolean) => (done() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ done, resolve })));
  const bySubject = (subject: string) => received.find((r) => r.mail.subject === subject);
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
          for (const w of waiters.filter((w) => w.done())) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
          if (r.to.some((a) => slow.has(a))) held.push(() => callback());
          else callback();
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
    slow,
    release: () => {
      slow.clear();
      for (const answer of held.splice(0)) answer();
    },
    waitForSubject: (subject) => until(() => bySubject(subject) !== undefined).then(() => bySubject(subject)!),
    waitForCount: (subject, recipient, count) => until(() => received.filter((r) => r.mail.subject === subject && r.to.includes(recipient)).length >= count),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

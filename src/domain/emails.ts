/**
 * Outgoing e-mail (docs/decisions.md, "E-mail"): a message as the clients send it is checked and
 * stored with its attachments in the mutation's transaction; the batches of
 * src/jobs/email-sender.ts send it. Nothing here talks to a mail server.
 */
import addressparser from 'nodemailer/lib/addressparser';
import type { AppContext } from '../context.js';
import { insertRows } from '../db/tenant-writes.js';
import { EmailMessage } from '../entities/email.js';
import { AppError, badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { contentTypeOf, fileById, fileBytes, fileNameOf } from './files.js';
import { base64Bytes, maxLength, optionalString } from './validate.js';

type Input = Record<string, unknown>;

const MAX_ADDRESSES = 100;
const MAX_ATTACHMENTS = 100;
/** A header line's limit (RFC 5322); the body's is ours. */
const LIMITS = { subject: 998, body: 1_000_000 } as const;
/**
 * What an address must look like (RFC 5321's 254 characters at most): a local part of dot-separated
 * words, an @, and a domain of dot-separated labels, none starting or ending with a hyphen; no
 * spaces, brackets, quotes or separators. `a.@b.c` (which nodemailer sent quoted, `"a."@b.c`) and
 * `a@b..c` were taken, and the mail server refused them only once the batch sent them.
 */
const WORD = String.raw`[^\s@<>()[\]\\,;:".]+`;
const LABEL = String.raw`(?!-)${WORD}(?<!-)`;
const ADDRESS = new RegExp(String.raw`^${WORD}(?:\.${WORD})*@${LABEL}(?:\.${LABEL})*$`);

/** An address list's tokens: a quoted name, an `<address>`, a comment, a separator, spaces, a run of anything else. */
const TOKEN = /"(?:[^"\\]|\\.)*"|<[^<>]*>|\([^()]*\)|[,;]|\s+|[^\s"<>(),;]+|["<>()]/g;

/**
 * `list` with a comma wherever one address ends but no separator was written: in place of line
 * breaks and tabs (a column pasted in), after each `<address>`, and after each bare address (a word
 * holding an `@` outside quotes, which no unquoted name may hold). The parser took `a@b c@d`,
 * `Name <a@b> c@d` and `a@b Name <c@d>` as one address whose name held the rest, and mailed one.
 * Spaces within a name (`Ada Lovelace <a@b>`) stay.
 */
function separated(list: string): string {
  return list.replace(/[\r\n\t]+/g, ',').replace(TOKEN, (t) => ((t.startsWith('<') && t.endsWith('>')) || (/^[^"(]/.test(t) && t.includes('@')) ? `${t},` : t));
}

/** A comma list of addresses, each `a@b` or `"Name" <a@b>`: what the sender hands to the mail server. */
export function addressList(input: Input, key: string): string[] {
  // A string or a list of them (GraphQL's [String!], which a single string also fills).
  const sent = input[key];
  const joined = (Array.isArray(sent) ? sent : sent === undefined || sent === null ? [] : [sent]).join(',');
  const raw = separated(joined);
  if (raw.replace(/[,;]/g, '').trim() === '') return [];
  return addressparser(raw, { flatten: true }).map(({ name, address }) => {
    if (!address || address.length > 254 || !ADDRESS.test(address) || /[\u0000-\u001f\u007f]/.test(address)) {
      const shown = (address || name || '').slice(0, 64);
      throw badRequest(`'${shown}' in '${key}' is not an e-mail address (write name@domain, several separated by commas or semicolons).`, { field: key });
    }
    const display = name.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    return display ? `"${display.replace(/["\\]/g, '\\$&')}" <${address}>` : address;
  });
}

interface File {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/** A file as the caller sent it: its bytes as the REST face received them, or in base64 (`fileUpload` on /graphql). */
type SentFile = { name?: string | null; type?: string | null } & ({ bytes: Buffer } | { base64: string });

/**
 * The caller's files: the multipart body's file parts the REST face hands over beside the input
 * (`ctx.attachments`), else `fileUpload` as /graphql sends it. One that declares no type (or the
 * generic application/octet-stream) is of the type its extension names.
 */
function uploadedFiles(ctx: AppContext, input: Input): File[] {
  const parts: SentFile[] = ctx.attachments ?? ((input.fileUpload ?? []) as SentFile[]);
  return parts.map((p, i) => {
    const fileName = fileNameOf(p.name ?? '', `fileUpload[${i}].name`);
    const contentType = contentTypeOf(undefined, p.type ?? undefined, `fileUpload[${i}].type, attachment ${JSON.stringify(fileName.slice(0, 64))}`, fileName);
    return { fileName, contentType, bytes: 'bytes' in p ? p.bytes : base64Bytes(p.base64, 'fileUpload.base64') };
  });
}

/**
 * The current file of each document named (by its id or a revision's), as the caller may see it;
 * a 413 as soon as the files pass `budget` bytes, so no more of them is read.
 */
async function documentFiles(ctx: AppContext, input: Input, budget: number): Promise<File[]> {
  const ids = ((input.documents ?? []) as string[]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length > MAX_ATTACHMENTS) throw badRequest(`A message may carry at most ${MAX_ATTACHMENTS} attachments.`, { field: 'documents' });
  const files: File[] = [];
  for (const id of ids) {
    const f = await fileById(ctx, id).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw badRequest(`The document '${id.slice(0, 64)}' in 'documents' was not found or has no file to attach.`, { field: 'documents' });
      throw err;
    });
    // Measured before its bytes are read: a file past the budget is never loaded.
    const bytes = await fileBytes(f, budget, () => tooLarge(ctx));
    budget -= bytes.length;
    files.push({ fileName: f.fileName, contentType: f.contentType, bytes });
  }
  return files;
}

const tooLarge = (ctx: AppContext) =>
  new AppError('PAYLOAD_TOO_LARGE', `The attachments come to more than the limit of ${ctx.services.config.emailMaxAttachmentBytes} bytes (EMAIL_MAX_ATTACHMENT_BYTES).`);

/** Queues a message from the caller; it is sent by the next batch. */
export async function queueEmail(ctx: AppContext, input: Input): Promise<void> {
  const to = addressList(input, 'recipients');
  if (to.length === 0) {
    const sent = input.recipients !== undefined && input.recipients !== null;
    throw badRequest(`${sent ? "The field 'recipients' names no address" : "The mandatory field 'recipients' is missing"}: name at least one address to send to.`, { field: 'recipients' });
  }
  const cc = addressList(input, 'ccRecipients');
  const bcc = addressList(input, 'bccRecipients');
  if (to.length + cc.length + bcc.length > MAX_ADDRESSES) throw badRequest(`A message may go to at most ${MAX_ADDRESSES} addresses in all.`);
  // A line break in a header would end it: the subject is one line.
  const subject = maxLength((optionalString(input, 'subject') ?? '').replace(/[\r\n]+/g, ' '), LIMITS.subject, 'subject');
  const body = maxLength(optionalString(input, 'body') ?? '', LIMITS.body, 'body');

  const uploaded = uploadedFiles(ctx, input);
  const uploadedBytes = uploaded.reduce((n, f) => n + f.bytes.length, 0);
  if (uploadedBytes > ctx.services.config.emailMaxAttachmentBytes) throw tooLarge(ctx);
  const files = [...uploaded, ...(await documentFiles(ctx, input, ctx.services.config.emailMaxAttachmentBytes - uploadedBytes))];
  if (files.length > MAX_ATTACHMENTS) throw badRequest(`A message may carry at most ${MAX_ATTACHMENTS} attachments.`);

  const em = ctx.em();
  const messageId = newId();
  em.create(EmailMessage, {
    id: messageId,
    recipients: to.join(', '),
    ccRecipients: cc.join(', '),
    bccRecipients: bcc.join(', '),
    subject,
    body,
    createdById: ctx.caller.userId,
  } as EmailMessage);
  await em.flush();
  await insertRows(
    ctx.reader,
    'email_attachment',
    files.map((f, position) => ({ id: newId(), message_id: messageId, position, file_name: f.fileName, content_type: f.contentType, size: f.bytes.length, content: f.bytes })),
  );
}

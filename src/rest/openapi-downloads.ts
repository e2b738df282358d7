/**
 * A download's range and conditional requests in the OpenAPI document (src/rest/conditional.ts;
 * docs/decisions.md, "Files"), by its row's `file`: the request headers it reads and the answers
 * they bring (206, 304, 412, 416).
 */
import type { SofaRoute } from './routes.js';
import { errorResponse } from './openapi-envelope.js';
import type { Schema } from './openapi-sofa.js';

const requestHeader = (name: string, description: string) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });
const textHeader = (description: string) => ({ description, schema: { type: 'string' } });
const RANGE_HEADERS = [
  requestHeader('Range', 'One range of bytes: `bytes=a-b`, `bytes=a-` or `bytes=-n` (the last n), answered 206. Several that do not join, another unit, or a malformed one: the whole file. HEAD takes none.'),
  requestHeader('If-Range', "The file's ETag: the Range holds only while the file is that one; else (a date too) the whole file."),
];
const IF_NONE_MATCH = requestHeader('If-None-Match', "Entity tags, or `*`: 304 when the file's is among them (compared weakly).");
const IF_MATCH = requestHeader('If-Match', "Entity tags, or `*`: 412 unless the file's is among them (compared strongly).");
const DOWNLOADS = {
  stored: {
    parameters: [
      ...RANGE_HEADERS,
      IF_NONE_MATCH,
      requestHeader('If-Modified-Since', 'An HTTP-date: 304 when the file is no newer. Ignored beside If-None-Match.'),
      IF_MATCH,
      requestHeader('If-Unmodified-Since', 'An HTTP-date: 412 when the file is newer. Ignored beside If-Match.'),
    ],
    validators: {
      ETag: textHeader("The file's strong entity tag: its file id, quoted. A file id's bytes, name and type never change."),
      'Last-Modified': textHeader("When the file was stored (a zip: when it was asked for); at files/{documentId} and files?q= the later of that and the document's last change."),
    },
    unchanged: 'If-None-Match or If-Modified-Since',
    changed: 'If-Match or If-Unmodified-Since',
  },
  content: {
    // Made or read on each request: no date to compare, so If-Modified-Since and If-Unmodified-Since are ignored.
    parameters: [...RANGE_HEADERS, IF_NONE_MATCH, IF_MATCH],
    validators: { ETag: textHeader('A strong entity tag of the bytes (their SHA-256, base64url), quoted: the same bytes, the same tag. No Last-Modified.') },
    unchanged: 'If-None-Match',
    changed: 'If-Match',
  },
};

/** The file's answer, whose Content-Type is the row's or the one the file was stored with. */
export const fileResponse = (row: SofaRoute) => ({
  description: row.fileType ? 'The file' : "The file, with the Content-Type it was stored with (application/octet-stream when it has none)",
  content: { [row.fileType ?? '*/*']: { schema: { type: 'string', format: 'binary' } } },
});

/** Adds a download's request headers to `parameters`, and its validators and the answers they bring to `responses` (its 200 already there). */
export function documentDownload(file: NonNullable<SofaRoute['file']>, parameters: Schema[], responses: Record<string, unknown>): void {
  const download = DOWNLOADS[file];
  parameters.push(...download.parameters);
  const ok = responses['200'] as Record<string, unknown>;
  ok.headers = { ...download.validators, 'Accept-Ranges': textHeader('`bytes`.') };
  responses['206'] = { description: 'The bytes the Range names.', headers: { ...(ok.headers as object), 'Content-Range': textHeader('`bytes a-b/size`.') }, content: ok.content };
  responses['304'] = { description: `The file is the one ${download.unchanged} names: no body.`, headers: download.validators };
  responses['412'] = errorResponse(`The file is not the one ${download.changed} names.`);
  responses['416'] = { ...errorResponse('The Range names no byte of the file: all past its end, or a last byte before its first.'), headers: { 'Content-Range': textHeader('`bytes */size`.') } };
}

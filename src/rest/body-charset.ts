/**
 * The charset a request body may declare: UTF-8 (or US-ASCII, its subset), as every body is read,
 * REST's, the token endpoint's and /graphql's alike. A multipart body's own label counts (its
 * parts are read as UTF-8 whatever it says); a part's charset is the part's (busboy decodes it so).
 */
import { AppError } from '../errors.js';

const READABLE = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * A 415 for a Content-Type that declares another charset (`charset=utf-16`, `iso-8859-1`), or
 * undefined: the body would be read as UTF-8 all the same, its text in another encoding turned
 * into other text or into a parse error that does not say why.
 */
export function charsetRefusal(contentType: string | null): AppError | undefined {
  const declared = /;\s*charset\s*=\s*"?([^";,\s]*)/i.exec(contentType ?? '')?.[1];
  if (declared === undefined || READABLE.has(declared.toLowerCase())) return undefined;
  return new AppError('UNSUPPORTED_MEDIA_TYPE', `The request body is declared as charset=${declared.slice(0, 64)}: send it as UTF-8 (charset=utf-8, or no charset).`);
}

/** The same refusal, thrown: for a reader about to take a body (src/rest/body.ts). */
export function refuseCharset(contentType: string | null): void {
  const refusal = charsetRefusal(contentType);
  if (refusal) throw refusal;
}

/**
 * The Content-Type each file part of a multipart body declared, if any. busboy reports a part
 * without one as `text/plain` (RFC 7578 4.4's default; its maintainers keep it so, mscdex/busboy#238)
 * and hands over no part headers, so a part sent as text/plain and one sent with no type at all (as
 * the older Node client sends its files) look the same to its listeners.
 *
 * busboy exports the splitter it runs on, Dicer, which does give each part's header lines. One runs
 * beside busboy over the same bytes, always written to first, and notes for each part whether it has
 * a Content-Type. busboy passes over some parts without a word (no Content-Disposition, one that is
 * not `form-data`, a name with a line break in it); which ones is asked of busboy itself: each part's
 * headers go, as a part of its own (under a boundary of its own, new for each request), to a
 * second busboy (the judge), whose `isPartAFile` is called just for the parts it keeps. The real
 * busboy calls its `isPartAFile` for the same parts, in the same order, right before it reports
 * each one: that call takes the next kept part's note.
 * Nothing here changes what busboy parses or reports; at worst (a boundary written in a way this
 * does not read the same, see `boundaryOf`) a part's type is taken as declared, as busboy says it.
 */
import { randomUUID } from 'node:crypto';
import { Busboy, Dicer } from '@fastify/busboy';

/** busboy's own rule when `isPartAFile` is not given (its README): octet-stream, or any part with a file name. */
const busboyDefault = (type: string | undefined, fileName: string | undefined) => type === 'application/octet-stream' || fileName !== undefined;

/** A header value busboy reads a media type from: something before any `;` (`Content-Type: ` or `; charset=x` gives none). */
const HAS_TYPE = /^[ \t]*[^ \t;]/;

/**
 * Dicer holds back its next write while a part's stream is full, and nothing reads these parts'
 * data before the next tick: a write held back would be noted later, behind busboy. Pushed past
 * this, a part's data is let go as it flows, a tick later.
 */
const NEVER_FULL = 2 ** 30;

export interface PartTypes {
  /** For busboy's config: its default decision, noting which part it is about to report. */
  isPartAFile(fieldName: string | undefined, contentType: string | undefined, fileName: string | undefined): boolean;
  /** Sees the body's bytes, each chunk before busboy is given it. */
  see(chunk: Uint8Array): void;
  /** The type of the file part busboy reported last, as it was sent (parameters too), or undefined when the part sent none. */
  declared(mimeType: string): string | undefined;
}

/** A watcher for one multipart request of this Content-Type. */
export function partTypes(requestContentType: string): PartTypes {
  const boundary = boundaryOf(requestContentType);
  // Without a boundary read as busboy reads it, every type counts as declared: busboy's word, as before.
  if (boundary === undefined) return { isPartAFile: (_f, type, file) => busboyDefault(type, file), see: () => {}, declared: (type) => type };

  /** For each part busboy keeps, in order: the Content-Type it sent, or false for none. */
  const kept: (string | false)[] = [];
  let next = 0;
  let current: string | false | undefined;

  // Its parts carry no data, so it parses each write as it is made.
  let judged = false;
  // The judge's own boundary, new for each request: a header value written to it cannot hold it (it
  // has no line breaks), but a header's name starts a line, and a client could name one after a
  // fixed boundary (`--quire-part-judge: x`) to end a part early and shift every note after it.
  const judgeBoundary = `quire-part-judge-${randomUUID()}`;
  const judge = Busboy({
    headers: { 'content-type': `multipart/form-data; boundary=${judgeBoundary}` },
    limits: { headerSize: Infinity, headerPairs: Infinity },
    isPartAFile: () => {
      judged = true;
      // As a text part it has nothing to read.
      return false;
    },
  });
  judge.on('error', () => {});
  judge.write(Buffer.from(`--${judgeBoundary}`));

  const dicer = new Dicer({ boundary, partHwm: NEVER_FULL } as Dicer.Config);
  // Malformed bodies are busboy's to refuse; this one only stops noting.
  dicer.on('error', () => {});
  dicer.on('part', (part) => {
    part.on('error', () => {});
    part.on('header', (header: Record<string, string[]>) => {
      // The part again, header lines only (no value holds a line break: Dicer stops reading a header block at a line with one).
      const lines = Object.entries(header).flatMap(([name, values]) => values.map((v) => `${name}: ${v}`));
      judged = false;
      judge.write(Buffer.from(`\r\n${lines.join('\r\n')}\r\n\r\n\r\n--${judgeBoundary}`, 'latin1'));
      const type = header['content-type']?.[0] ?? '';
      if (judged) kept.push(HAS_TYPE.test(type) && type.trim());
    });
    part.resume();
  });

  return {
    isPartAFile(_fieldName, contentType, fileName) {
      current = next < kept.length ? kept[next++] : undefined;
      return busboyDefault(contentType, fileName);
    },
    see(chunk) {
      dicer.write(chunk);
    },
    declared(mimeType) {
      // busboy's text/plain is the one it gives a part with no type: only that one is read again.
      if (mimeType === 'text/plain' && current === false) return undefined;
      // busboy drops the parameters (`; charset=utf-16`): the type as sent keeps them, where it is the same type.
      return typeof current === 'string' && current.split(';')[0].trim().toLowerCase() === mimeType ? current : mimeType;
    },
  };
}

/**
 * The boundary of a multipart Content-Type, where busboy would read the same one: `boundary=x` or
 * `boundary="x"` of the characters RFC 2046 allows, the parameter ending there. Anything busboy might
 * read otherwise (escapes, spaces it drops, an encoded value) is undefined.
 */
export function boundaryOf(contentType: string): string | undefined {
  // Named twice (or inside another parameter's quotes), it is left to busboy alone.
  if (contentType.match(/;[ \t]*boundary[ \t]*[=*]/gi)?.length !== 1) return undefined;
  const m = /;[ \t]*boundary=(?:"([0-9A-Za-z'()+_,\-./:=? ]{1,70})"|([0-9A-Za-z'()+_\-./:=?]{1,70}))[ \t]*(?:;|$)/i.exec(contentType);
  // Inside quotes a space is part of it, for busboy as for Dicer.
  return m ? (m[1] ?? m[2]) : undefined;
}

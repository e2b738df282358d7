/**
 * A form instance printed as a PDF (pdf-lib): the template and instance names, revision and
 * audit, then every field's label and value in form order. The standard Helvetica font writes
 * Latin-1 (WinAnsi) text only: other characters print as '?'.
 */
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { parseDateTime } from '../scalars.js';

export interface PdfForm {
  templateName: string;
  instanceName: string;
  revision: number;
  revisionId: string;
  createDate: string;
  createBy: string;
  modifyDate: string;
  modifyBy: string;
  /** Label and value, in form order. */
  fields: { label: string; value: string }[];
}

const SIZE = 10;
const LINE = 14;
const MARGIN = 50;
const LABEL_WIDTH = 150;
/**
 * The most pages one PDF gets: a form may hold megabytes of text (each value up to 100,000
 * characters), which would print as thousands of pages; past this the PDF says it stops.
 */
export const MAX_PDF_PAGES = 200;

/**
 * What Helvetica's WinAnsi encoding can draw on one line; any other character becomes one '?' (a
 * tab a space). Composed first (NFC), so a letter typed decomposed (`u` and U+0308, as macOS
 * writes names) prints as the Latin-1 letter it is, `ü`, not `u?`; and read by code point, so a
 * character past U+FFFF (an emoji) is one '?', not one for each of its two UTF-16 halves.
 */
const printable = (s: string) => s.normalize('NFC').replace(/[^\x20-\x7e\xa0-\xff]/gu, (c) => (c === '\t' ? ' ' : '?'));

/** One character's width, measured once per font and character (Helvetica's widths add up, so a line's is their sum). */
function widthsOf(font: PDFFont): (c: string) => number {
  const known = new Map<string, number>();
  return (c) => {
    let w = known.get(c);
    if (w === undefined) known.set(c, (w = font.widthOfTextAtSize(c, SIZE)));
    return w;
  };
}

/**
 * The text broken into lines no wider than `width`: at its own line breaks, at spaces where it
 * can and anywhere where it must. Linear in the text's length: each character is measured once.
 */
function wrap(text: string, font: PDFFont, width: number): string[] {
  const widthOf = widthsOf(font);
  const measure = (s: string) => {
    let w = 0;
    for (const c of s) w += widthOf(c);
    return w;
  };
  const space = widthOf(' ');
  const lines: string[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    let line = '';
    let used = 0;
    for (const word of printable(paragraph).split(' ')) {
      const added = line === '' ? measure(word) : space + measure(word);
      if (used + added <= width) {
        line = line === '' ? word : `${line} ${word}`;
        used += added;
        continue;
      }
      if (line !== '') lines.push(line);
      // A word wider than the line: cut where it must.
      [line, used] = ['', 0];
      for (const c of word) {
        const cw = widthOf(c);
        if (line !== '' && used + cw > width) {
          lines.push(line);
          [line, used] = ['', 0];
        }
        line += c;
        used += cw;
      }
    }
    lines.push(line);
  }
  return lines;
}

/**
 * The same form prints as the same bytes: pdf-lib would date the file (and so change its bytes)
 * each second it is made; its dates are the form's instead, so the download's ETag, a hash of the
 * bytes, holds from one request to the next (docs/decisions.md, "Files").
 */
export async function formPdf(f: PdfForm): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(printable(`${f.templateName} - ${f.instanceName}`));
  doc.setCreationDate(parseDateTime(f.createDate));
  doc.setModificationDate(parseDateTime(f.modifyDate));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let page: PDFPage = doc.addPage();
  let y = page.getHeight() - MARGIN;
  let full = false;
  /** Whether there is a line left to write on: a new page when this one is full, none past MAX_PDF_PAGES. */
  const room = () => {
    if (y >= MARGIN) return true;
    if (doc.getPageCount() === MAX_PDF_PAGES) {
      if (!full) page.drawText(`(The form continues: a PDF shows at most ${MAX_PDF_PAGES} pages.)`, { x: MARGIN, y: MARGIN / 2, size: SIZE, font: bold });
      full = true;
      return false;
    }
    page = doc.addPage();
    y = page.getHeight() - MARGIN;
    return true;
  };
  const valueWidth = page.getWidth() - 2 * MARGIN - LABEL_WIDTH;
  const row = (label: string, value: string) => {
    if (full) return;
    const labels = wrap(label, bold, LABEL_WIDTH - 10);
    const values = wrap(value, font, valueWidth);
    for (let i = 0; i < Math.max(labels.length, values.length); i++) {
      if (!room()) return;
      if (labels[i]) page.drawText(labels[i], { x: MARGIN, y, size: SIZE, font: bold });
      if (values[i]) page.drawText(values[i], { x: MARGIN + LABEL_WIDTH, y, size: SIZE, font });
      y -= LINE;
    }
  };
  page.drawText(printable(f.templateName), { x: MARGIN, y, size: 16, font: bold });
  y -= 24;
  row('Form', f.instanceName);
  row('Revision', `${f.revision} (${f.revisionId})`);
  row('Created', `${f.createDate} by ${f.createBy}`);
  row('Modified', `${f.modifyDate} by ${f.modifyBy}`);
  y -= LINE;
  for (const field of f.fields) row(field.label, field.value);
  return doc.save();
}

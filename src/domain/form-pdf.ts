/**
 * A form instance printed as a PDF (pdf-lib): the template and instance names, revision and
 * audit, then every field's label and value in form order. The standard Helvetica font writes
 * Latin-1 (WinAnsi) text only: other characters print as '?'.
 */
import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';

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

/** What Helvetica's WinAnsi encoding can draw; anything else becomes '?'. */
const printable = (s: string) => s.replace(/[^\x20-\x7e\xa0-\xff]/g, (c) => (c === '\t' ? ' ' : '?'));

/** The text broken into lines no wider than `width`, at spaces where it can and anywhere where it must. */
function wrap(text: string, font: PDFFont, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const next = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(next, SIZE) <= width) {
        line = next;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      while (font.widthOfTextAtSize(line, SIZE) > width) {
        let cut = line.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), SIZE) > width) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    lines.push(line);
  }
  return lines;
}

export async function formPdf(f: PdfForm): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(printable(`${f.templateName} - ${f.instanceName}`));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  let page: PDFPage = doc.addPage();
  let y = page.getHeight() - MARGIN;
  const room = () => {
    if (y >= MARGIN) return;
    page = doc.addPage();
    y = page.getHeight() - MARGIN;
  };
  const valueWidth = page.getWidth() - 2 * MARGIN - LABEL_WIDTH;
  const row = (label: string, value: string) => {
    const labels = wrap(printable(label), bold, LABEL_WIDTH - 10);
    const values = wrap(printable(value), font, valueWidth);
    for (let i = 0; i < Math.max(labels.length, values.length); i++) {
      room();
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

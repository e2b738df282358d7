/**
 * A multipart file part's declared type (src/rest/part-types.ts): busboy says text/plain both of a
 * part that sends it and of one that sends no Content-Type; the watcher beside it tells them apart,
 * whichever parts busboy passes over and however the bytes arrive.
 */
import { Busboy } from '@fastify/busboy';
import { boundaryOf, partTypes } from '../../src/rest/part-types.js';

const B = 'quire-boundary';

/**
 * The file parts busboy reports, with the type the watcher gives each; `chunk` bytes at a time, as a
 * stream sends them. The watcher sees them all before busboy sees any: it must note each part as it
 * is shown, not later (busboy may be given a chunk at once after the watcher saw it).
 */
async function fileTypes(body: Buffer, contentType = `multipart/form-data; boundary=${B}`, chunk = body.length): Promise<[string, string | undefined][]> {
  const types = partTypes(contentType);
  // busboy, never held back by its file streams here, reads each chunk as it is given.
  const bb = Busboy({ headers: { 'content-type': contentType }, isPartAFile: types.isPartAFile, fileHwm: 2 ** 30 });
  const files: [string, string | undefined][] = [];
  bb.on('file', (_name, stream, fileName, _encoding, mimeType) => {
    files.push([fileName, types.declared(mimeType)]);
    stream.resume();
  });
  const done = new Promise((resolve, reject) => bb.on('finish', resolve).on('error', reject));
  const pieces = Array.from({ length: Math.ceil(body.length / chunk) }, (_, i) => body.subarray(i * chunk, (i + 1) * chunk));
  for (const piece of pieces) types.see(piece);
  for (const piece of pieces) bb.write(piece);
  bb.end();
  await done;
  return files;
}

const part = (head: string, content = 'the bytes') => `--${B}\r\n${head}\r\n\r\n${content}\r\n`;
const body = (...parts: string[]) => Buffer.from(`${parts.join('')}--${B}--\r\n`, 'latin1');

test('a file part with no Content-Type has none; one that says text/plain keeps it; others as declared, parameters too', async () => {
  const sent = body(
    part('Content-Disposition: form-data; name="subject"', 'hello'),
    part('Content-Disposition: form-data; name="fileUpload"; filename="scan.pdf"'),
    part('Content-Disposition: form-data; name="fileUpload"; filename="notes.txt"\r\nContent-Type: text/plain'),
    part('Content-Disposition: form-data; name="fileUpload"; filename="a.png"\r\nContent-Type: image/png'),
    part('Content-Disposition: form-data; name="fileUpload"; filename="b.txt"\r\nContent-Type: text/plain; charset=utf-8'),
    // A Content-Type with no type in it is none, as busboy reads it.
    part('Content-Disposition: form-data; name="fileUpload"; filename="c.bin"\r\nContent-Type: ; charset=utf-8'),
  );
  const expected = [
    ['scan.pdf', undefined],
    ['notes.txt', 'text/plain'],
    ['a.png', 'image/png'],
    ['b.txt', 'text/plain; charset=utf-8'],
    ['c.bin', undefined],
  ];
  expect(await fileTypes(sent)).toEqual(expected);
  // As a stream brings it: 1 and 7 bytes at a time, every header cut somewhere.
  expect(await fileTypes(sent, undefined, 1)).toEqual(expected);
  expect(await fileTypes(sent, undefined, 7)).toEqual(expected);
});

test('as the older Node client sends it (a leading CRLF, form-Data), and with a quoted boundary', async () => {
  const sent = Buffer.concat([Buffer.from('\r\n'), body(part('Content-Disposition: form-Data; name="fileUpload"; filename="scan.pdf"'), part('Content-Disposition: form-Data; name="x"; filename="t.txt"\r\nContent-Type: text/plain'))]);
  expect(await fileTypes(sent)).toEqual([
    ['scan.pdf', undefined],
    ['t.txt', 'text/plain'],
  ]);
  expect(await fileTypes(sent, `multipart/form-data; boundary="${B}"`)).toEqual([
    ['scan.pdf', undefined],
    ['t.txt', 'text/plain'],
  ]);
});

test('parts busboy passes over do not shift the others', async () => {
  const typed = 'Content-Type: text/plain';
  const sent = body(
    // No Content-Disposition; one that is not form-data; a file name with a line break in it
    // (percent-encoded); a header block Dicer drops for a bare line break: busboy reports none of these.
    part(typed),
    part(`Content-Disposition: attachment; name="a"; filename="a.txt"\r\n${typed}`),
    part(`Content-Disposition: form-data; name="b"; filename*=utf-8''b%0Ab.txt\r\n${typed}`),
    part('Content-Disposition: form-data; name="c"; filename="c.pdf"'),
    part(`Content-Disposition: form-data; name="d"; filename="d.txt"\r\n${typed}`),
    part('Content-Disposition: form-data; name="e"; filename="e.pdf"\nX-Other: y\r\nContent-Type: text/plain'),
    part('Content-Disposition: form-data; name="f"; filename="f.pdf"'),
    part(`Content-Disposition: form-data; name="g"; filename="g.txt"\r\n${typed}`),
  );
  expect(await fileTypes(sent)).toEqual([
    ['c.pdf', undefined],
    ['d.txt', 'text/plain'],
    ['f.pdf', undefined],
    ['g.txt', 'text/plain'],
  ]);
  expect(await fileTypes(sent, undefined, 5)).toEqual([
    ['c.pdf', undefined],
    ['d.txt', 'text/plain'],
    ['f.pdf', undefined],
    ['g.txt', 'text/plain'],
  ]);
});

test('a part header named as a boundary the watcher might use, at a line start of what it writes back, shifts no note', async () => {
  const sent = (header: string) =>
    body(
      part(`Content-Disposition: form-data; name="a"\r\n${header}: x`, 'x'),
      part('Content-Disposition: form-data; name="f"; filename="one.txt"\r\nContent-Type: text/plain'),
      part('Content-Disposition: form-data; name="f"; filename="two.pdf"'),
    );
  for (const header of ['--quire-part-judge', '--quire-part-judge--']) {
    expect([header, await fileTypes(sent(header))]).toEqual([
      header,
      [
        ['one.txt', 'text/plain'],
        ['two.pdf', undefined],
      ],
    ]);
  }
});

test('a header block just inside busboy\'s limits (80 KiB, 2000 lines) is judged whole, though written back a little longer', async () => {
  // 1999 lines of 40 bytes, then the Content-Disposition: 80,020 bytes as sent.
  const padded = (disposition: string) => `${'X-Pad:'.padEnd(38, 'p').concat('\r\n').repeat(1999)}${disposition}`;
  const sent = body(
    part(padded('Content-Disposition: form-data; name="a"; filename="a.pdf"')),
    part('Content-Disposition: form-data; name="b"; filename="b.txt"\r\nContent-Type: text/plain'),
    part(padded('Content-Disposition: form-data; name="c"; filename="c.pdf"')),
  );
  expect(await fileTypes(sent, undefined, 4096)).toEqual([
    ['a.pdf', undefined],
    ['b.txt', 'text/plain'],
    ['c.pdf', undefined],
  ]);
});

test('a large file part does not hold the watcher back: the parts after it are noted as they are shown', async () => {
  const big = 'x'.repeat(200 * 1024);
  const sent = body(
    part('Content-Disposition: form-data; name="a"; filename="a.pdf"', big),
    part('Content-Disposition: form-data; name="b"; filename="b.txt"\r\nContent-Type: text/plain', big),
    part('Content-Disposition: form-data; name="c"; filename="c.pdf"'),
  );
  const expected = [
    ['a.pdf', undefined],
    ['b.txt', 'text/plain'],
    ['c.pdf', undefined],
  ];
  expect(await fileTypes(sent, undefined, 64 * 1024)).toEqual(expected);
  expect(await fileTypes(sent)).toEqual(expected);
});

test('a boundary not read as busboy would read it: every type as busboy says it', async () => {
  expect(boundaryOf(`multipart/form-data; boundary=${B}`)).toBe(B);
  expect(boundaryOf(`Multipart/Form-Data;BOUNDARY="a b"; charset=utf-8`)).toBe('a b');
  expect(boundaryOf('multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW')).toBe('----WebKitFormBoundary7MA4YWxkTrZu0gW');
  // busboy drops the space in the first and takes the first of the last: left to busboy.
  for (const odd of ['multipart/form-data; boundary=a b', 'multipart/form-data; boundary="a\\"b"', 'multipart/form-data; boundary=x; boundary=y', 'multipart/form-data']) {
    expect(boundaryOf(odd)).toBeUndefined();
  }
  const sent = Buffer.from(`--ab\r\nContent-Disposition: form-data; name="f"; filename="s.pdf"\r\n\r\nx\r\n--ab--\r\n`);
  expect(await fileTypes(sent, 'multipart/form-data; boundary=a b')).toEqual([['s.pdf', 'text/plain']]);
});

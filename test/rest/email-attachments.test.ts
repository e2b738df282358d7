/**
 * How an e-mail's attachments reach the operation (docs/decisions.md, "E-mail"): from a REST
 * multipart body, as the bytes received, beside the input (`AppContext.attachments`), the input
 * naming them without a base64 copy; from /graphql (and a REST JSON body), in base64 in
 * `fileUpload`. What is queued and sent from each: test/rest/emails.test.ts.
 */
import { jest } from '@jest/globals';
import type { AppContext } from '../../src/context.js';

/** What the operation was given, per call; nothing is queued. */
const seen: { input: Record<string, unknown>; attachments: AppContext['attachments'] }[] = [];
const actual = await import('../../src/domain/emails.js');
jest.unstable_mockModule('../../src/domain/emails.js', () => ({
  ...actual,
  queueEmail: async (ctx: AppContext, input: Record<string, unknown>) => {
    seen.push({ input, attachments: ctx.attachments });
  },
}));
const { Harness } = await import('../harness.js');
const { adminApi } = await import('./support.js');

let h: InstanceType<typeof Harness>;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

const bytes = Buffer.from([...Array(256).keys()]);

test('REST multipart: the file parts reach the operation as Buffers, in order, and the input carries none of their bytes', async () => {
  const A = await adminApi(h);
  const form = new FormData();
  form.append('recipients', 'ada@example.com');
  form.append('fileUpload', new Blob(['first file'], { type: 'text/plain' }), 'notes.txt');
  form.append('fileUpload', new Blob([new Uint8Array(bytes)]), 'every byte.bin');
  const req = new Request('http://x/', { method: 'POST', body: form });
  seen.length = 0;
  const r = await A.post('/emails', undefined, { raw: new Uint8Array(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } });
  expect(r.status).toBe(201);
  const [{ input, attachments }] = seen;
  expect(attachments!.map((a) => [a.name, a.type, Buffer.isBuffer(a.bytes) && a.bytes.toString('hex')])).toEqual([
    ['notes.txt', 'text/plain', Buffer.from('first file').toString('hex')],
    ['every byte.bin', 'application/octet-stream', bytes.toString('hex')],
  ]);
  expect(input.fileUpload).toEqual([
    { name: 'notes.txt', type: 'text/plain', base64: '' },
    { name: 'every byte.bin', type: 'application/octet-stream', base64: '' },
  ]);
});

test('/graphql and a REST JSON body: the files come in base64 in fileUpload, with nothing beside the input', async () => {
  const A = await adminApi(h);
  const file = { name: 'every byte.bin', base64: bytes.toString('base64') };
  seen.length = 0;
  const g = await A.gql('mutation ($input: EmailInput!) { sendEmail(input: $input) { success } }', { input: { recipients: ['ada@example.com'], fileUpload: [file] } });
  expect(g.body.errors).toBeUndefined();
  expect((await A.post('/emails', { recipients: 'ada@example.com', fileUpload: [file] })).status).toBe(201);
  expect(seen.map(({ input, attachments }) => [attachments, input.fileUpload])).toEqual([
    [undefined, [file]],
    [undefined, [file]],
  ]);
});

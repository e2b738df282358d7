/**
 * `POST files` as a stream (route rows marked `upload`): the caller is authenticated first, then
 * the multipart body is read as it arrives, its first file part written straight into the file
 * store (at most FILE_MAX_BYTES) and its text parts kept (at most MAX_BODY_BYTES in all, taken
 * from BODY_MEMORY_BYTES as each arrives), so a file of any allowed size never sits in memory;
 * the whole body keeps the least pace of one held (src/body-pace.ts).
 * Later file parts are read and dropped, as the clients' "the first file part is the upload" says. The operation then finds the stored file in
 * its context (`AppContext.upload`); the runner deletes it again when the operation refuses.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sessionEnded } from '../auth/session.js';
import { buildContext, type AppContext, type ReceivedUpload, type Services } from '../context.js';
import { discardFiles, fileKey } from '../domain/stored-files.js';
import { FileStoreFault } from '../storage/file-store.js';
import { newId } from '../ids.js';
import type { Match } from './match.js';
import { requestIdOf } from './request-id.js';
import { checkFileName, gatherTextParts, multipartError, multipartParser, partChunks, refuseNul } from './body.js';
import { partTypes } from './part-types.js';

export interface Received {
  /** The text parts, as parseMultipart gives them; the file part as `fileUpload: {name, type}`. */
  parts: Record<string, unknown>;
  upload: ReceivedUpload | undefined;
  /** The context built to check the sender: the operation runs with it, its session asked again since the body took its time. */
  context: AppContext;
}

export async function receiveUpload(services: Services, request: Request, m: Match): Promise<Received> {
  // Who is sending, before a byte of the file is taken: its text parts take from its tenant's part of the budget.
  const ctx = await buildContext(services, request, requestIdOf(request), m.tenant);
  if (!(await ctx.sessionAlive())) throw sessionEnded();
  const { maxBodyBytes, fileMaxBytes } = services.config;
  const fileId = newId();
  const key = fileKey(ctx.tenantId, fileId);

  const parts: Record<string, unknown> = {};
  let upload: Promise<ReceivedUpload> | undefined;
  const types = partTypes(request.headers.get('content-type') ?? '');
  const bb = multipartParser(request, maxBodyBytes, types);
  // The text parts are held, and taken from the budget of bodies held; the file part streams through.
  gatherTextParts(bb, parts, maxBodyBytes, (size) => services.bodies.take(request, size));
  let fileStream: Readable | undefined;
  bb.on('file', (field, stream, name, _encoding, mimeType) => {
    if (upload) return stream.resume();
    try {
      checkFileName(field, name);
    } catch (err) {
      stream.resume();
      return bb.destroy(err as Error);
    }
    const type = types.declared(mimeType);
    fileStream = stream;
    upload = services.files.put(key, stream, fileMaxBytes).then(
      (stored) => ({ key, fileId, name, type, ...stored }),
      (err: unknown) => {
        // The store stopped taking it (too large, or failing): so does the reading.
        bb.destroy(err as Error);
        throw err;
      },
    );
  });
  // The whole body at the budget's least pace: text parts held, then the file part stalled, would hold them for an hour.
  const readError = await pipeline(Readable.from(partChunks(request, types, { pace: services.bodies.pace })), bb).then(
    () => undefined,
    (err: unknown) => {
      // The body failed (malformed, the client went away): the file part ends with it.
      fileStream?.destroy(err as Error);
      return err;
    },
  );
  // Read to its end, the file may still be on its way into the store.
  const stored = await upload?.then(
    (file) => ({ file }),
    (err: unknown) => ({ err }),
  );
  // The store's own refusal is no fault of the body.
  if (stored && 'err' in stored) throw stored.err instanceof FileStoreFault ? stored.err : multipartError(stored.err);
  try {
    if (readError !== undefined) throw multipartError(readError);
    refuseNul(parts, 'request body');
  } catch (err) {
    // The file is whole but the request is not, or not to be kept: the stored bytes go again.
    if (stored) await discardFiles(services, [key], requestIdOf(request));
    throw err;
  }
  // The body may have taken an hour: a session ended meanwhile must not record the file.
  ctx.recheckSession();
  const file = stored?.file;
  // `base64` stays empty: the bytes are in the store, and the operation takes them from its context.
  return { parts: file ? { ...parts, fileUpload: { name: file.name, type: file.type, base64: '' } } : parts, upload: file, context: ctx };
}


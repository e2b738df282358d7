import { watchPace, type Pace } from './body-pace.js';

/**
 * What a body may come to: past `maxBytes` reading stops with `tooLarge()`; `taking` is told each
 * chunk's size before the chunk is passed on, and if it throws, reading stops with its error; with
 * a `pace`, a body that falls behind it stops with its error (src/body-pace.ts).
 */
export interface ReadLimit {
  maxBytes: number;
  tooLarge: () => Error;
  taking?: (bytes: number) => void;
  pace?: Pace;
}

/** A reading held to a pace only: a body whose parts are bounded apart (an upload's, src/rest/upload.ts). */
export type PaceOnly = Pick<ReadLimit, 'pace'>;

/**
 * A body stream's chunks as they arrive, for a consumer that parses them as they come (a multipart
 * body, src/rest/body.ts), within `limit` (or only its pace) when one is given. The stream is cancelled when reading
 * stops early: past the limit, behind its pace, or when the consumer stops.
 */
export async function* chunksOf(body: ReadableStream<Uint8Array> | null, limit?: ReadLimit | PaceOnly): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  const pace = limit?.pace && watchPace(limit.pace);
  let size = 0;
  let done = false;
  try {
    for (;;) {
      const r = await (pace ? pace.read(() => reader.read()) : reader.read());
      if (r.done) {
        done = true;
        return;
      }
      size += r.value.byteLength;
      pace?.arrived(r.value.byteLength);
      if (limit && 'maxBytes' in limit) {
        if (size > limit.maxBytes) throw limit.tooLarge();
        limit.taking?.(r.value.byteLength);
      }
      yield r.value;
    }
  } finally {
    pace?.stop();
    // A body that fell behind its pace may have a read pending that never ends, and so would its cancel: not awaited.
    const cancelled = done ? undefined : reader.cancel().catch(() => undefined);
    if (!pace?.behind) await cancelled;
  }
}

/** Reads a body stream whole, within `limit` (`chunksOf`). */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: ReadLimit): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of chunksOf(body, limit)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** What a body may come to: past `maxBytes` reading stops with `tooLarge()`; `taking` is told each chunk's size before the chunk is passed on, and if it throws, reading stops with its error. */
export interface ReadLimit {
  maxBytes: number;
  tooLarge: () => Error;
  taking?: (bytes: number) => void;
}

/**
 * A body stream's chunks as they arrive, for a consumer that parses them as they come (a multipart
 * body, src/rest/body.ts), within `limit` when one is given. The stream is cancelled when reading
 * stops early: past the limit, or when the consumer stops.
 */
export async function* chunksOf(body: ReadableStream<Uint8Array> | null, limit?: ReadLimit): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let size = 0;
  let done = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        done = true;
        return;
      }
      size += r.value.byteLength;
      if (limit) {
        if (size > limit.maxBytes) throw limit.tooLarge();
        limit.taking?.(r.value.byteLength);
      }
      yield r.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/** Reads a body stream whole, but never more than `maxBytes` of it (`chunksOf`). */
export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => Error,
  taking?: (bytes: number) => void,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of chunksOf(body, { maxBytes, tooLarge, taking })) chunks.push(chunk);
  return Buffer.concat(chunks);
}

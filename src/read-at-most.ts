/**
 * Reads a body stream whole, but never more than `maxBytes` of it: past that it stops reading and
 * throws `tooLarge()`. `taking`, when given, is told each chunk's size before the chunk is kept;
 * if it throws, reading stops with its error.
 */
export async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  tooLarge: () => Error,
  taking?: (bytes: number) => void,
): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    try {
      if (size > maxBytes) throw tooLarge();
      taking?.(value.byteLength);
    } catch (e) {
      await reader.cancel().catch(() => undefined);
      throw e;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

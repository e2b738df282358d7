/** Zip files of documents (src/domain/document-zips.ts). Who may call each: schema/document-zip.graphql. */
import type { AppContext } from '../context.js';
import { createDocumentZip, type ZipFailure } from '../domain/document-zips.js';
import { conflict } from '../errors.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { raw, sql } from '../sql.js';

/** Why the zip failed, as its builder recorded it (src/jobs/zip-builder.ts). */
async function failureOf(ctx: AppContext, downloadKey: string): Promise<ZipFailure> {
  const [row] = await selectRows<{ failure: ZipFailure | '' }>(ctx.reader, resource('DocumentZip'), { extra: raw(', t.failure as "failure"'), where: [sql`t.id = ${downloadKey}`] });
  // Failed before reasons were kept: said as a failure that may pass.
  return row?.failure || 'unreadable';
}

/** The reason in words the caller can act on; the detail (which file, what the store said) is the log's. */
function failedBecause(failure: ZipFailure, maxBytes: number): string {
  switch (failure) {
    case 'tooLarge':
      return `it came out larger than a stored file may be (FILE_MAX_BYTES, ${maxBytes} bytes): ask for one of fewer documents.`;
    case 'sourceLost':
      return "the stored bytes of one of its documents' files are missing: ask an administrator, as a new zip of that document would fail the same way.";
    case 'noRoom':
      return 'the file store had no room for it: tell an administrator of this service, then ask for a new one.';
    case 'unreadable':
      return 'its files could not be read at the time: ask for a new one.';
  }
}

export const resolvers = {
  Query: {
    readyDocumentZipFile: async (_: unknown, { downloadKey }: { downloadKey: string }, ctx: AppContext) => {
      const zip = await reread(ctx, resource('DocumentZip'), downloadKey);
      if (zip.status === 'Pending') throw conflict('The zip is still being built: ask documents/GetDocumentZipFileStatus until its status is Ready.');
      if (zip.status === 'Failed') throw conflict(`The zip could not be built: ${failedBecause(await failureOf(ctx, downloadKey), ctx.services.config.fileMaxBytes)}`);
      return zip;
    },
  },
  Mutation: {
    createDocumentZipFile: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) =>
      reread(ctx, resource('DocumentZip'), await createDocumentZip(ctx, input)),
  },
};

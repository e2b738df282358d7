/** The fields documents have (src/domain/document-fields.ts), open to anyone in the tenant. */
import { documentField, documentFields } from '../domain/document-fields.js';
import type { ListArgs } from '../read/paging.js';
import type { ReadContext } from '../read/resolvers.js';

export const resolvers = {
  Query: {
    documentFields: (_: unknown, args: ListArgs, ctx: ReadContext) => documentFields(ctx, args),
    documentField: (_: unknown, { name }: { name: string }) => documentField(name),
  },
};

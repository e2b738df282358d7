/** Documents' index fields by document or revision, and setting their values (src/domain/document-index-values.ts). Who may call each: schema/document-index-field.graphql. */
import type { AppContext } from '../context.js';
import { fieldOf, revisionIn, revisionOf, setIndexField, setIndexFields } from '../domain/document-index-values.js';
import type { ListArgs } from '../read/paging.js';
import { underRelation } from '../read/parent-keys.js';
import { listPage } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

type Input = Record<string, unknown>;

const FIELDS = resource('DocumentIndexField');
const REVISION = resource('DocumentRevision');
const ofRevision = (ctx: AppContext, revisionId: string, args: ListArgs) => listPage(ctx, FIELDS, args, [underRelation(REVISION, 'indexFields', revisionId)]);

export const resolvers = {
  Query: {
    documentIndexFields: async (_: unknown, a: ListArgs & { documentId: string }, ctx: AppContext) => ofRevision(ctx, (await revisionOf(ctx, a.documentId)).revisionId, a),
    documentIndexField: async (_: unknown, a: { documentId: string; fieldId: string }, ctx: AppContext) => fieldOf(ctx, (await revisionOf(ctx, a.documentId)).revisionId, a.fieldId),
    revisionIndexFields: async (_: unknown, a: ListArgs & { documentId: string; id: string }, ctx: AppContext) => ofRevision(ctx, await revisionIn(ctx, a.documentId, a.id), a),
    revisionIndexField: async (_: unknown, a: { documentId: string; id: string; fieldId: string }, ctx: AppContext) =>
      fieldOf(ctx, await revisionIn(ctx, a.documentId, a.id), a.fieldId),
  },
  Mutation: {
    setDocumentIndexField: async (_: unknown, a: { documentId: string; fieldId: string; input: Input }, ctx: AppContext) =>
      fieldOf(ctx, await setIndexField(ctx, a.documentId, a.fieldId, a.input), a.fieldId),
    setDocumentIndexFields: async (_: unknown, a: { documentId: string; input: Input }, ctx: AppContext) =>
      ofRevision(ctx, await setIndexFields(ctx, a.documentId, a.input), {}),
  },
};

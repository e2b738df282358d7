/**
 * Document types (docs/decisions.md, "Document types"): named kinds of document a tenant's
 * administrators keep. The clients create one with `{documentTypeName}`; `name` says the same.
 */
import type { AppContext } from '../context.js';
import { DocumentType } from '../entities/document-type.js';
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { editable } from './editable.js';
import { maxLength, nameText, optionalString, uniquely } from './validate.js';

type Input = Record<string, unknown>;

const LIMITS = { name: 256, description: 4000 } as const;

/** The name sent as `name` or `documentTypeName`; both sent, they must agree. */
function sentName(input: Input): string | undefined {
  const name = optionalString(input, 'name');
  const legacy = optionalString(input, 'documentTypeName');
  if (name !== undefined && legacy !== undefined && name.trim() !== legacy.trim()) {
    throw badRequest("The fields 'name' and 'documentTypeName' say the same thing; send one, or both alike.");
  }
  return name ?? legacy;
}

/** `lock` for a delete: of two at once, the second finds it gone (404). */
const documentTypeById = (ctx: AppContext, id: string, lock = false): Promise<DocumentType> => editable(ctx, DocumentType, id, 'Document type', lock);

/** A new document type; returns its id. Two of one name at once: one is made, the other gets a 409. */
export async function createDocumentType(ctx: AppContext, input: Input): Promise<string> {
  const name = sentName(input);
  // Its field is `name`, as the name's other refusals (nameText, uniquely) have it, whichever key a client uses.
  if (name === undefined) throw badRequest("The mandatory field 'documentTypeName' (or 'name') is missing.", { field: 'name' });
  const by = ctx.caller.userId;
  const type = ctx.em().create(DocumentType, {
    id: newId(),
    name: nameText(name, LIMITS.name),
    description: maxLength(optionalString(input, 'description') ?? '', LIMITS.description, 'description'),
    createdById: by,
    modifiedById: by,
  } as DocumentType);
  await uniquely(`A document type named '${type.name}'`, () => ctx.em().flush());
  return type.id;
}

/** Changes what is sent. */
export async function updateDocumentType(ctx: AppContext, id: string, input: Input): Promise<void> {
  const type = await documentTypeById(ctx, id);
  const name = sentName(input);
  const description = optionalString(input, 'description');
  if (name === undefined && description === undefined) throw badRequest('Send at least one of: name (or documentTypeName), description.');
  if (name !== undefined) type.name = nameText(name, LIMITS.name, 'name', type.name);
  if (description !== undefined) type.description = maxLength(description, LIMITS.description, 'description');
  type.modifiedById = ctx.caller.userId;
  await uniquely(`A document type named '${type.name}'`, () => ctx.em().flush());
}

export async function deleteDocumentType(ctx: AppContext, id: string): Promise<void> {
  ctx.em().remove(await documentTypeById(ctx, id, true));
  await ctx.em().flush();
}

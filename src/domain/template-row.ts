/** Finding a form template the way every route names one: by its id, one of its revision ids, or its name. */
import DataLoader from 'dataloader';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { isGuid } from '../ids.js';
import { resource } from '../read/registry.js';
import { fieldOf, selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

type Row = Record<string, unknown>;

const TEMPLATE = resource('FormTemplate');
const REVISION = resource('FormTemplateRevision');

/**
 * The template `idOrName` names, in one statement: by its id, by any of its revisions' ids (the
 * .NET client puts the template's `revisionId` where the template id goes), or by its name
 * (case-insensitively). A GUID that is one template's id or revision id and another's name names
 * the first: an id is tried first, as it always was.
 */
async function lookUp(ctx: AppContext, idOrName: string): Promise<Row | undefined> {
  const id = isGuid(idOrName) ? idOrName.toLowerCase() : null;
  const rows = await selectRows<Row>(ctx.reader, TEMPLATE, {
    where: [sql`(t.id in (${id}::uuid, ${fieldOf(ctx.reader, REVISION, 'templateId', [sql`t.id = ${id}::uuid`])}) or name_key(t.name) = name_key(${idOrName}))`],
    limit: 2,
  });
  return rows.length > 1 ? rows.find((r) => (r.name as string).toLowerCase() !== id) : rows[0];
}

/** The request's look-ups, so a template named twice (by the path, then by a form's template id) is read once. */
const named = (ctx: AppContext) =>
  ctx.loaders.cached('FormTemplate.named', () => new DataLoader<string, Row | undefined>(async ([k]) => [await lookUp(ctx, k)], { batch: false }));

/** A template's row by id, revision id or name, or a 404. */
export async function templateRow(ctx: AppContext, idOrName: string): Promise<Row> {
  const row = await named(ctx).load(idOrName);
  if (!row) throw notFound(`Form template '${idOrName}' was not found.`);
  named(ctx).prime(row.id as string, row);
  ctx.loaders.byId(TEMPLATE).prime(row.id as string, row);
  return row;
}

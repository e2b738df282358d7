/** Finding a form template the way every route names one: by its id or by its name. */
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { isGuid } from '../ids.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

type Row = Record<string, unknown>;

const TEMPLATE = resource('FormTemplate');

/** A template's row by id or, failing that, by name (case-insensitively), or a 404. */
export async function templateRow(ctx: AppContext, idOrName: string): Promise<Row> {
  const byId = isGuid(idOrName) ? await ctx.loaders.byId(TEMPLATE).load(idOrName.toLowerCase()) : undefined;
  const row = byId ?? (await selectRows<Row>(ctx.reader, TEMPLATE, { where: [sql`lower(t.name) = lower(${idOrName})`] }))[0];
  if (!row) throw notFound(`Form template '${idOrName}' was not found.`);
  return row;
}

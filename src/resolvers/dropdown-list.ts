/** Drop-down list writes and the options of drop-down index fields (src/domain/dropdown-lists.ts). Who may call each: schema/dropdown-list.graphql. */
import type { AppContext } from '../context.js';
import { createList, deleteItems, deleteList, updateList } from '../domain/dropdown-lists.js';
import { LIST_FIELD, MODIFIABLE_LIST_FIELD } from '../domain/index-field-types.js';
import { folderIndexField } from '../domain/index-fields.js';
import { notFound } from '../errors.js';
import { ZERO_GUID } from '../ids.js';
import { computedQueryFields } from '../datatypes.js';
import { compileQText } from '../query/index.js';
import type { ResourceDef } from '../read/define.js';
import { queryFieldMap } from '../read/fields.js';
import { loadRow, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;

const LIST = resource('DropDownList');
/** Field types whose options are a drop-down list's items, and the users drop-down. */
const LIST_TYPES = new Set([LIST_FIELD, MODIFIABLE_LIST_FIELD]);
const USERS_TYPE = 7;
/** More options than a person can pick from. */
const MAX_OPTIONS = 10_000;

/** An option's `q` fields over the record it comes from: `display` and `value` are these fields of it. */
const optionFields = (def: ResourceDef, display: string, value: string) => {
  const of = queryFieldMap(def);
  return computedQueryFields('IndexFieldSelectOption', (field) => of.get((field === 'display' ? display : value).toLowerCase())!.sql);
};
const ITEM_OPTIONS = optionFields(resource('DropDownListItem'), 'itemName', 'itemValue');
const USER_OPTIONS = optionFields(resource('User'), 'name', 'userid');

/** The options of a folder's index field that `q` finds (over display and value), each with the href of what it comes from. */
async function optionsOf(ctx: AppContext, folderId: string, id: string, q: string | null | undefined) {
  // A bad q is a 400 whatever the field's type, as on any list.
  const [itemQ, userQ] = [compileQText(q ?? undefined, ITEM_OPTIONS), compileQText(q ?? undefined, USER_OPTIONS)];
  const field = await folderIndexField(ctx, folderId, id);
  if (!field) {
    await loadRow(ctx, resource('Folder'), folderId);
    throw notFound(`Index field '${id}' is not in folder '${folderId}'.`);
  }
  const type = field.fieldType as number;
  const option = (href: string, display: unknown, value: unknown) => ({ href, dataType: 'IndexFieldSelectOption', display, value });
  if (LIST_TYPES.has(type) && field.dropDownListId !== ZERO_GUID) {
    const where = [sql`t.list_id = ${field.dropDownListId as string}`, ...(itemQ ? [itemQ] : [])];
    const items = await selectRows<Row>(ctx.reader, resource('DropDownListItem'), { where, order: 't.position, t.id', limit: MAX_OPTIONS });
    return items.map((i) => option(`~/lists/${i.dropDownListId as string}/items/${i.listId as string}`, i.itemName, i.itemValue));
  }
  if (type === USERS_TYPE) {
    const users = await selectRows<Row>(ctx.reader, resource('User'), { where: [sql`t.enabled`, ...(userQ ? [userQ] : [])], order: resource('User').order, limit: MAX_OPTIONS });
    return users.map((u) => option(`~/users/${u.id as string}`, u.name, u.userid));
  }
  return [];
}

export const resolvers = {
  Query: {
    folderIndexFieldOptions: (_: unknown, a: { folderId: string; id: string; q?: string | null }, ctx: AppContext) => optionsOf(ctx, a.folderId, a.id, a.q),
  },
  Mutation: {
    createDropDownList: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, LIST, await createList(ctx, input)),
    updateDropDownList: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updateList(ctx, id, input);
      return reread(ctx, LIST, id.toLowerCase());
    },
    deleteDropDownList: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteList(ctx, id);
      return true;
    },
    deleteDropDownListItems: async (_: unknown, { id, itemIds }: { id: string; itemIds: string }, ctx: AppContext) => {
      await deleteItems(ctx, id, itemIds);
      return true;
    },
  },
};

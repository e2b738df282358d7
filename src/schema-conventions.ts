/**
 * Descriptions of the names every resource shares (`href`, `dataType`, the users behind
 * `createById` and `modifyById`, a page's `items` and `totalRecords`, the list arguments `q`,
 * `limit` and `offset`), written once here instead of on each of their hundreds of uses in
 * schema/. A description in the SDL wins.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { isObjectType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';

const FIELDS: Record<string, string> = {
  href: 'The record\'s REST address, relative to the tenant\'s base URL (`~/...`).',
  dataType: 'The record\'s data type name, as REST answers it (`/meta` describes each).',
  createByUser: 'The user `createById` names (null when unknown or no longer there).',
  modifyByUser: 'The user `modifyById` names (null when unknown or no longer there).',
};

/** A page type's own fields (`SitePage`, ...); elsewhere `items` may mean something else (a list's items). */
const PAGE_FIELDS: Record<string, string> = {
  totalRecords: 'How many records match, over every page.',
  items: 'The records of this page, in the list\'s order.',
};

/** A page type (`SitePage`: `items` and `totalRecords`), whose two fields are computed only when selected. */
export const isPageType = (type: unknown): type is GraphQLObjectType =>
  isObjectType(type) && type.name.endsWith('Page') && !!type.getFields().items && !!type.getFields().totalRecords;

/** Also the OpenAPI description of `limit` and `offset` where a paged row's envelope cuts a list its field answers whole. */
export const ARGS: Record<string, string> = {
  q: "A filter in the API's query language, as REST's `q=`: `[field] eq 'value'` with `eq ne gt ge lt le like between not in`, joined by `and`/`or`.",
  limit: 'How many records a page holds: DEFAULT_PAGE_SIZE when not given, at most MAX_PAGE_SIZE.',
  offset: 'How many records to skip before the page starts (0 when not given).',
};

export function withConventionalDescriptions(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (config, fieldName, typeName) => {
      const description = config.description ?? FIELDS[fieldName] ?? (typeName.endsWith('Page') ? PAGE_FIELDS[fieldName] : undefined);
      const args = config.args && Object.fromEntries(Object.entries(config.args).map(([name, a]) => [name, { ...a, description: a.description ?? ARGS[name] }]));
      return { ...config, description, args };
    },
  });
}

import { isObjectType, type GraphQLResolveInfo } from 'graphql';
import { notFound } from '../errors.js';
import { dataTypes, type DataTypeInfo } from '../datatypes.js';

/**
 * The data type names the legacy service reports, in its order (CustomerDatabase appears twice
 * there too). Field lists exist for the types this service serves (its resource definitions);
 * docs/decisions.md says what the others answer.
 */
export const LEGACY_DATA_TYPES = [
  'Customer',
  'CustomerDatabase',
  'CustomerDatabase',
  'Document',
  'DocumentIndexField',
  'Folder',
  'FolderIndexField',
  'FormInstance',
  'FormTemplate',
  'Group',
  'IndexFieldDefinition',
  'IndexFieldSelectOption',
  'PersistedData',
  'ServerStatus',
  'Site',
  'User',
];

const describe = (dt: DataTypeInfo) => ({
  dataType: dt.name,
  availableFields: dt.availableFields,
  defaultFields: dt.defaultFields,
  idField: dt.idField,
});

/**
 * Records made by a resolver rather than read through a definition, by data type, with the field
 * that tells them apart (an option has no id: its value is what a document stores; an alert
 * event, one of a fixed list in src/alert-events.ts, has its fixed id).
 */
const COMPUTED: Record<string, { idField: string }> = { IndexFieldSelectOption: { idField: 'value' }, AlertEvent: { idField: 'id' } };

/** A computed type, described from its GraphQL type (every field but href and dataType). */
function describeComputed(info: GraphQLResolveInfo, name: string) {
  const type = info.schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type of the schema`);
  const fields = Object.keys(type.getFields()).filter((f) => f !== 'href' && f !== 'dataType');
  return { dataType: name, availableFields: fields, defaultFields: fields, idField: COMPUTED[name].idField };
}

export const resolvers = {
  Query: {
    meta: () => ({ dataTypes: LEGACY_DATA_TYPES }),
    metaDataTypes: (_: unknown, __: unknown, ___: unknown, info: GraphQLResolveInfo) => [
      // Each data type once: a document and its revisions are both `Document`, described as `/meta/Document` describes it.
      ...[...dataTypes.byName.values()].map(describe),
      ...Object.keys(COMPUTED).map((name) => describeComputed(info, name)),
    ],
    metaDataType: (_: unknown, { datatype }: { datatype: string }, __: unknown, info: GraphQLResolveInfo) => {
      const dt = dataTypes.get(datatype);
      const computed = Object.keys(COMPUTED).find((n) => n.toLowerCase() === datatype.toLowerCase());
      if (!dt && computed) return describeComputed(info, computed);
      if (!dt) {
        const known = LEGACY_DATA_TYPES.some((n) => n.toLowerCase() === datatype.toLowerCase());
        throw notFound(
          known
            ? `The data type '${datatype}' is not served by this version of the service yet.`
            : `Unknown data type '${datatype}'. GET /meta lists the data types.`,
        );
      }
      return describe(dt);
    },
    configuration: () => ({ isEnabled: false }),
  },
};

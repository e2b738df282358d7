import { notFound } from '../errors.js';
import { dataTypes, type DataTypeInfo } from '../datatypes.js';

/**
 * The data type names the legacy service reports, in its order (CustomerDatabase appears twice
 * there too). Field lists exist for the types this service serves (its resource definitions and
 * the records resolvers make, src/datatypes.ts); docs/decisions.md says what the others answer.
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

/**
 * A data type by its name in any case or by its route's plural: the PHP client's `getMetaData`
 * is told to pass `documents` for the documents' description.
 */
const named = <T>(name: string, find: (n: string) => T | undefined): T | undefined =>
  find(name) ?? (/s$/i.test(name) ? find(name.slice(0, -1)) : undefined);

const describe = (dt: DataTypeInfo) => ({
  dataType: dt.name,
  availableFields: dt.availableFields,
  defaultFields: dt.defaultFields,
  idField: dt.idField,
});

export const resolvers = {
  Query: {
    meta: () => ({ dataTypes: LEGACY_DATA_TYPES }),
    // Each data type once: a document and its revisions are both `Document`, described as `/meta/Document` describes it.
    metaDataTypes: () => [...dataTypes.byName.values()].map(describe),
    metaDataType: (_: unknown, { datatype }: { datatype: string }) => {
      const dt = named(datatype, (n) => dataTypes.get(n));
      if (!dt) {
        const known = named(datatype, (n) => LEGACY_DATA_TYPES.find((t) => t.toLowerCase() === n.toLowerCase()));
        throw notFound(
          known
            ? `The data type '${datatype}' is not served by this version of the service yet.`
            : `Unknown data type '${datatype.slice(0, 64)}'. GET /meta lists the data types.`,
        );
      }
      return describe(dt);
    },
    configuration: () => ({ isEnabled: false }),
  },
};

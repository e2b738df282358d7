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
      const dt = dataTypes.get(datatype);
      if (!dt) {
        const known = LEGACY_DATA_TYPES.some((n) => n.toLowerCase() === datatype.toLowerCase());
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

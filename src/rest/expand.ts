/**
 * SOFA pre-builds one document per root field with the scalar fields of its records. A request
 * that expands relations (`expand=users`), needs no total (unpaged routes) or shows no form
 * values runs a variant of that document, built once per combination and cached: no parse or validation per request. The
 * combinations are bounded: each relation of the type at most once (src/rest/run-route.ts).
 */
import {
  getNamedType,
  isObjectType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

export interface Variant {
  recordType: string | undefined;
  relations: string[];
  dropTotal: boolean;
  /** The records' dynamic field (form values), left out when the answer shows none of its keys. */
  dropDynamic?: string;
}

const cache = new WeakMap<DocumentNode, Map<string, DocumentNode>>();

const field = (name: string, selectionSet?: SelectionSetNode): FieldNode => ({
  kind: Kind.FIELD,
  name: { kind: Kind.NAME, value: name },
  selectionSet,
});

function scalarSelection(schema: GraphQLSchema, typeName: string): SelectionSetNode {
  const type = schema.getType(typeName);
  const fields = isObjectType(type) ? Object.values(type.getFields()) : [];
  return {
    kind: Kind.SELECTION_SET,
    selections: fields
      .filter((f) => !isObjectType(getNamedType(f.type)) && !f.args.some((a) => a.type.toString().endsWith('!')))
      .map((f) => field(f.name)),
  };
}

export function variantOf(schema: GraphQLSchema, doc: DocumentNode, v: Variant): DocumentNode {
  if (!v.dropTotal && v.relations.length === 0 && !v.dropDynamic) return doc;
  const key = `${v.dropTotal}|${v.dropDynamic ?? ''}|${v.relations.join(',')}`;
  let perDoc = cache.get(doc);
  if (!perDoc) cache.set(doc, (perDoc = new Map()));
  const hit = perDoc.get(key);
  if (hit) return hit;

  const typeInfo = new TypeInfo(schema);
  const recordType = v.recordType ? schema.getType(v.recordType) : undefined;
  const built = visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        if (v.dropTotal && node.name.value === 'totalRecords') return null;
        if (v.dropDynamic && node.name.value === v.dropDynamic && typeInfo.getParentType() === recordType) return null;
        return undefined;
      },
      SelectionSet: {
        leave(node) {
          const parent = typeInfo.getParentType();
          if (!recordType || parent !== recordType || !isObjectType(recordType)) return undefined;
          const fields = recordType.getFields();
          const extra = v.relations
            .filter((r) => fields[r])
            .map((r) => field(r, scalarSelection(schema, getNamedType(fields[r].type).name)));
          return { ...node, selections: [...node.selections, ...extra] };
        },
      },
    }),
  );
  perDoc.set(key, built);
  return built;
}

/**
 * GraphQL's refusal of a value written in the query (`createSite(input: {name: 5})`) names its
 * argument only in its message. It is placed here as a refused variable is (src/variable-refusals.ts):
 * `extensions.field`, the value's path among its field's arguments (`input.name`, `input.items[1]`).
 * The path comes from the document alone, so it holds for a validation result Yoga cached for it.
 */
import { GraphQLError, Kind, visit, type ASTNode, type DocumentNode, type ValueNode } from 'graphql';

/** Where each value written as a field's argument lies: its path; an object's unknown key, the object's (as a variable's gets). */
function valuePaths(document: DocumentNode): Map<ASTNode, string> {
  const paths = new Map<ASTNode, string>();
  const walk = (value: ValueNode, path: string): void => {
    // A variable's value is refused with its variable's name (src/variable-refusals.ts).
    if (value.kind === Kind.VARIABLE) return;
    paths.set(value, path);
    if (value.kind === Kind.OBJECT) {
      for (const f of value.fields) {
        paths.set(f, path);
        walk(f.value, `${path}.${f.name.value}`);
      }
    } else if (value.kind === Kind.LIST) value.values.forEach((v, i) => walk(v, `${path}[${i}]`));
  };
  visit(document, { Field: (node) => node.arguments?.forEach((a) => walk(a.value, a.name.value)) });
  return paths;
}

/** The one node a validation error is about, if one. */
const about = (e: Error): ASTNode | undefined => (e instanceof GraphQLError && e.nodes?.length === 1 ? e.nodes[0] : undefined);

/** `errors` of validating `document`, each refusal of one value written in it with `extensions.field`. */
export function placedLiterals(document: DocumentNode, errors: readonly Error[]): Error[] {
  if (!errors.some(about)) return [...errors];
  const paths = valuePaths(document);
  return errors.map((e) => {
    const node = about(e);
    const field = node && paths.get(node);
    if (field === undefined || !(e instanceof GraphQLError)) return e;
    return new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, originalError: e.originalError, extensions: { ...e.extensions, field } });
  });
}

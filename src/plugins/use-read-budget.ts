/**
 * /graphql's read budget: an operation may ask for at most MAX_QUERY_ROWS rows. Every paged field
 * (a list read, or a relation such as Group.users) asks for `limit` rows (DEFAULT_PAGE_SIZE when
 * unset, at most MAX_PAGE_SIZE), each with whatever its own selection asks for; so nested lists
 * multiply (`sites { items { users { id } } }` is 200 + 200 x 200 at the defaults). Counted with
 * graphql-query-complexity once the variables are known, before anything runs; over budget is a
 * 400 that says how to ask for less. REST runs fixed documents whose relations are one page each
 * and does not pass here: its `expand=` counts the rows as they are read (Loaders.readAtMost).
 */
import { GraphQLError, getNamedType, isObjectType, Kind, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import { appToGraphQL } from '../graphql-errors.js';
import { effectiveLimit } from '../read/paging.js';
import { selectionMayAsk } from '../read/resolvers.js';
import { tooManyRefusals } from '../variable-refusals.js';

type Limits = Pick<Config, 'defaultPageSize' | 'maxPageSize' | 'maxQueryRows'>;

/**
 * Rows a field asks for: a paged field's page times (1 + what each row asks for), and one more for
 * a page's `totalRecords` (a count is one row, per parent under a relation: `usersPage`); any
 * other field, what its selection asks for.
 */
export function rowsEstimator(config: Limits): ComplexityEstimator {
  return ({ field, node, args, childComplexity }) => {
    if (!field.args.some((a) => a.name === 'limit')) return childComplexity;
    const limit = typeof args.limit === 'number' ? args.limit : undefined;
    const named = getNamedType(field.type);
    const total = isObjectType(named) && named.getFields().totalRecords && selectionMayAsk(node.selectionSet, 'totalRecords') ? 1 : 0;
    return Math.max(0, effectiveLimit(config, limit)) * (1 + childComplexity) + total;
  };
}

/**
 * Whether a document asks for the same rows whatever its variables: one operation, no `limit`
 * from a variable, no directive (`@skip`/`@include`) that takes one.
 */
function countsAlike(document: DocumentNode): boolean {
  let alike = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length === 1;
  visit(document, {
    Argument(node) {
      if (node.name.value === 'limit' && node.value.kind === Kind.VARIABLE) alike = false;
    },
    Directive(node) {
      if (node.arguments?.some((a) => a.value.kind === Kind.VARIABLE)) alike = false;
    },
  });
  return alike;
}

export function useReadBudget(config: Limits): Plugin {
  const estimators = [rowsEstimator(config)];
  // Yoga hands the same parsed document to every request with the same query text: a document
  // that counts alike whatever its variables is counted once (counting walks the whole document,
  // about 20 µs of a by-id read's 300), one whose count varies is marked so and counted each time.
  const counted = new WeakMap<DocumentNode, number | 'varies'>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const known = counted.get(args.document);
      // Counting coerces the variables with no limit on refusals (graphql-query-complexity asks
      // graphql-js for them all): past the limit, execution refuses them (useRefusalLimit).
      if (typeof known !== 'number' && tooManyRefusals(args)) return;
      let rows: number;
      try {
        rows =
          typeof known === 'number'
            ? known
            : getComplexity({
                schema: args.schema,
                query: args.document,
                variables: (args.variableValues ?? {}) as Record<string, unknown>,
                operationName: args.operationName ?? undefined,
                estimators,
              });
      } catch (e) {
        // Variables GraphQL cannot take: execution refuses them before it reads anything, and
        // its refusal is worded as a request error (src/plugins/use-error-mapping.ts).
        if (e instanceof GraphQLError) return;
        throw e;
      }
      if (known === undefined) counted.set(args.document, countsAlike(args.document) ? rows : 'varies');
      if (rows <= config.maxQueryRows) return;
      const message = `This operation may read ${rows} rows; one request may read at most ${config.maxQueryRows}. Ask for smaller pages (limit) or fewer nested lists.`;
      setResultAndStopExecution({ errors: [appToGraphQL(badRequest(message))] });
    },
  };
}

/**
 * Which operation of a /graphql document runs, and the refusals that say why none can: Yoga said
 * "Could not determine what operation to execute." for a name the document lacks, several
 * operations without `operationName` and an `operationName` that is not a string alike, and
 * answered a mutation sent by GET with a 405 whose code was `BAD_REQUEST`. Checked as the
 * document is parsed, before Yoga's own check of the same (registered later) could throw.
 */
import { Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, badRequest, namedList, shownValue } from '../errors.js';
import { appToGraphQL } from '../graphql-errors.js';

export function useOperationChoice(): Plugin {
  return {
    onParams({ params }) {
      const name: unknown = params.operationName;
      if (name != null && typeof name !== 'string') {
        throw appToGraphQL(badRequest(`The parameter 'operationName' must be a string, the name of an operation in the query, got ${shownValue(name)}.`));
      }
    },
    onParse() {
      return ({ result, context }) => {
        const { request, params } = context as { request?: Request; params?: { operationName?: string | null } };
        if (!request || !result || result instanceof Error) return;
        // A JSON body's `"operationName": null` (which many clients send) means none, as GET's absence does.
        const operation = chosen(result, params?.operationName ?? undefined);
        if (operation.operation === 'mutation' && request.method === 'GET') {
          throw appToGraphQL(new AppError('METHOD_NOT_ALLOWED', 'A mutation is sent by POST: GET runs queries only.'), undefined, { Allow: 'POST' });
        }
      };
    },
  };
}

/** The operation `operationName` names, or the document's only one; else a 400 that lists the choices. */
function chosen(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const named = operationName === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((o) => o.name?.value === operationName);
  if (named) return named;
  const names = namedList(
    operations.map((o) => o.name?.value ?? ''),
    (n) => (n ? `'${n.slice(0, 256)}'` : 'one without a name'),
  );
  if (operations.length === 0) throw appToGraphQL(badRequest('The query has no operation to execute, only fragments: add a query or a mutation.'));
  if (operationName === undefined) throw appToGraphQL(badRequest(`Send operationName: the query has ${operations.length} operations: ${names}.`));
  throw appToGraphQL(badRequest(`The query has no operation named '${operationName.slice(0, 256)}'; it has ${names}.`));
}

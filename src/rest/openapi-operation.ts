/**
 * The OpenAPI operation of a route row on a root field (src/rest/openapi.ts): its parameters,
 * its body, its answer in the envelope and the errors it may answer.
 */
import type { GraphQLSchema } from 'graphql';
import { bodyHoldsArgs, type SofaRoute } from './routes.js';
import { documentDownload, fileResponse } from './openapi-downloads.js';
import { REFUSALS } from './envelope.js';
import { COMPRESSED, ERRORS, errorResponse, NO_ROOM, OUTSIDE_FAILED, OUTSIDE_TOO_SLOW, ref, TOO_SLOW, UNAVAILABLE, UNAVAILABLE_WITH_BODY } from './openapi-envelope.js';
import { parametersOf } from './openapi-parameters.js';
import { argumentSchemas, descriptionsOf, recordSchema, sofaOperation, type Operation, type Schema, type SofaDoc } from './openapi-sofa.js';

function successSchema(row: SofaRoute, record: Schema | undefined): Schema {
  const properties: Record<string, Schema> = { meta: ref('Meta') };
  if (row.shape === 'list' || row.shape === 'one') {
    properties.data = { type: 'array', items: record ?? {}, ...(row.shape === 'one' ? { minItems: 1, maxItems: 1 } : {}) };
  } else if (row.shape === 'object') {
    properties.data = record ?? {};
  }
  if (row.paged) properties.pagination = ref('Pagination');
  return { type: 'object', required: Object.keys(properties), properties };
}

/** The envelope of the answer of rows that share an operation: `GET /meta` answers an object, with `expand=data` a paged list. */
function successOf(doc: SofaDoc, rows: SofaRoute[]): Schema {
  const shapes = rows.map((r) => JSON.stringify(successSchema(r, recordSchema(sofaOperation(doc, r.field), doc.components?.schemas ?? {}))));
  const distinct = [...new Set(shapes)].map((shape) => JSON.parse(shape) as Schema);
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}

/** The argument's description is the body's: beside the `$ref` SOFA gives, OpenAPI 3.0 ignores it. */
const requestBody = (required: boolean, { description, ...schema }: Schema) => ({
  required,
  ...(description ? { description } : {}),
  content: {
    'application/json': { schema },
    'application/x-www-form-urlencoded': { schema },
    // Each part a key of the body; a file part's content arrives as its text (src/rest/body.ts).
    'multipart/form-data': { schema },
  },
});

/**
 * A `refusalsAs200` row's refusals of what was sent go out as HTTP 200 with their status in
 * `meta.status` (src/rest/envelope.ts): documented there, not under statuses it never sends.
 */
function refusalsAsOk(row: SofaRoute, responses: Record<string, unknown>): void {
  if (responses['200']) throw new Error(`${row.method} ${row.path} answers 200 on success: its refusals need a status of their own`);
  for (const status of REFUSALS) delete responses[String(status)];
  responses['200'] = errorResponse(`A refusal of what was sent (${[...REFUSALS].join(', ')}): sent as HTTP 200, its own status in \`meta.status\`.`);
}

/** The tag of a path: its first segment, capitalised. */
export const tagOf = (path: string) => {
  const first = path.split('/').filter(Boolean)[0] ?? '';
  return first.charAt(0).toUpperCase() + first.slice(1);
};

/** The operation of `row`, with the `alternatives` a query parameter chooses at its path and method. */
export function rowOperation(doc: SofaDoc, schema: GraphQLSchema, row: SofaRoute, alternatives: SofaRoute[]): Operation {
  const args = argumentSchemas(sofaOperation(doc, row.field));
  const described = descriptionsOf(schema, row.field);
  const { parameters, queryOrBody } = parametersOf(doc, schema, row, alternatives);

  const [, name] = row.field.split('.');
  const notes = alternatives.map((a) => `With \`${a.when!.param}=${a.when!.values.join('|')}\`: the answer of \`${a.field}\`.`);
  const responses: Record<string, unknown> = {
    [String(row.status ?? 200)]: row.file
      ? fileResponse(row)
      : { description: 'Success', content: { 'application/json': { schema: successOf(doc, [row, ...alternatives]) } } },
  };
  for (const [status, description] of Object.entries(ERRORS)) responses[status] = errorResponse(description);
  if (row.file) documentDownload(row.file, parameters, responses);
  const readsBody = !!row.body || bodyHoldsArgs(row);
  if (readsBody) {
    responses['413'] = errorResponse(row.upload ? 'The file is larger than FILE_MAX_BYTES, or the other parts than MAX_BODY_BYTES.' : 'The body is larger than MAX_BODY_BYTES.');
    responses['415'] = errorResponse(COMPRESSED);
    responses['409'] = errorResponse('The change conflicts with the current state.');
    responses['408'] = errorResponse(TOO_SLOW);
  }
  if (row.upload) responses['507'] = errorResponse(NO_ROOM);
  if (row.outside) Object.assign(responses, { '502': errorResponse(OUTSIDE_FAILED), '504': errorResponse(OUTSIDE_TOO_SLOW) });
  responses['503'] = errorResponse(readsBody ? UNAVAILABLE_WITH_BODY : UNAVAILABLE);
  if (row.refusalsAs200) refusalsAsOk(row, responses);
  return {
    operationId: `${row.method.toLowerCase()}_${name}`,
    summary: row.field,
    ...(described.field || notes.length ? { description: [described.field, ...notes].filter(Boolean).join('\n\n') } : {}),
    tags: [tagOf(row.path)],
    parameters,
    ...(row.body ? { requestBody: requestBody(true, args.properties[row.body] ?? {}) } : {}),
    // Shown where it has a key to hold: a row whose path fills every argument reads a body only to refuse a malformed one.
    ...(bodyHoldsArgs(row) && Object.keys(queryOrBody).length ? { requestBody: requestBody(false, { type: 'object', properties: queryOrBody }) } : {}),
    responses,
    security: [{ bearer: [] }],
  };
}

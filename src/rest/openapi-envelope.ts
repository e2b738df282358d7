/**
 * The envelope around every answer of the OpenAPI document (src/rest/openapi.ts), as the spec
 * describes it, and the error answers every operation documents.
 */
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import type { Operation, Schema } from './openapi-sofa.js';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The envelope's parts, as the spec describes them. */
export const ENVELOPE_SCHEMAS: Record<string, Schema> = {
  Meta: {
    type: 'object',
    required: ['status', 'statusMsg', 'method', 'href'],
    properties: {
      status: { type: 'integer', description: 'The HTTP status (also sent as the response status unless suppress_response_codes=true).' },
      statusMsg: { type: 'string' },
      method: { type: 'string' },
      href: { type: 'string', description: 'The URL of this request.' },
    },
  },
  Error: {
    type: 'object',
    required: ['code', 'message', 'developerMessage'],
    properties: { code: { type: 'string', example: 'NOT_FOUND' }, message: { type: 'string' }, developerMessage: { type: 'string' } },
  },
  ErrorEnvelope: {
    type: 'object',
    required: ['meta'],
    properties: {
      meta: { allOf: [ref('Meta'), { type: 'object', required: ['errors'], properties: { errors: { type: 'array', items: ref('Error') } } }] },
    },
  },
  Pagination: {
    type: 'object',
    properties: {
      dataType: { type: 'string', enum: ['PagedData'] },
      href: { type: 'string' },
      first: { type: 'string' },
      last: { type: 'string' },
      next: { type: 'string', description: 'Empty on the last page.' },
      previous: { type: 'string', description: 'Empty on the first page.' },
      limit: { type: 'integer' },
      totalRecords: { type: 'integer' },
    },
  },
};

/** The errors any operation may answer. */
export const ERRORS: Record<string, string> = {
  '400': 'The request is malformed (the message says how).',
  '401': 'No valid bearer token.',
  '403': 'The token belongs to another customer database, or the caller may not do this.',
  '404': 'No such record (or no such route).',
};

/** The database away (src/db/unavailable.ts): any operation. */
export const UNAVAILABLE = 'The database is not available right now: nothing was done; try again after Retry-After seconds.';
/** ... or, for one that reads a body, the server's budget of bodies held at once full, or the caller's tenant's part of it (src/body-budget.ts). */
export const UNAVAILABLE_WITH_BODY =
  "The database is not available right now, or the server is receiving too many request bodies at once (BODY_MEMORY_BYTES, or the caller's customer database's part of it, BODY_MEMORY_TENANT_BYTES): nothing was done; try again after Retry-After seconds.";

/** An upload's file the file store has no room for (src/storage/file-store.ts, `storeFull`). */
export const NO_ROOM = 'The file store has no room for the file (its disk full, its quota used up, or the file larger than it takes): nothing was stored.';

/** The outside process that runs scripts failed or took too long (src/domain/scripts.ts). */
export const OUTSIDE_FAILED = 'The outside process that runs scripts failed: it could not be reached, broke off, answered an HTTP error, or answered what is not JSON (the message says which).';
export const OUTSIDE_TOO_SLOW = 'The outside process that runs scripts gave no whole answer within SCRIPT_TIMEOUT_SECONDS.';

/** A body (a file part's too) that arrives too slowly (src/body-pace.ts). */
export const TOO_SLOW = 'The body arrived more slowly than BODY_MIN_BYTES_PER_SECOND after BODY_GRACE_SECONDS: nothing was done, and the connection is closed.';

/** A body with a Content-Encoding is refused before it is read (src/plugins/use-content-encoding.ts). */
export const COMPRESSED = 'The body was sent compressed (a Content-Encoding other than identity): send it uncompressed.';

export const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('ErrorEnvelope') } } });

/** Every 503 says when to try again (src/plugins/use-retry-after.ts). */
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', example: RETRY_AFTER_SECONDS } } };

/** The operation with `Retry-After` on its 503, whoever wrote the answer's body (the token endpoint writes its own). */
export function withRetryAfter(op: Operation): Operation {
  const responses = op.responses as Record<string, Record<string, unknown>>;
  return { ...op, responses: { ...responses, '503': { ...responses['503'], headers: RETRY_AFTER } } };
}

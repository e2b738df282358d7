/**
 * Refusals capture no stack (src/errors.ts): an AppError and the GraphQL error that carries it are
 * expected outcomes whose stacks are never shown or logged, and capturing them was a third of a
 * 401's CPU. Other errors keep theirs: an unexpected error's stack is what its log line is for.
 */
import { GraphQLError } from 'graphql';
import { AppError, badRequest, stackless, unauthorized } from '../../src/errors.js';
import { appToGraphQL } from '../../src/graphql-errors.js';

const frames = (e: Error) => (e.stack ?? '').split('\n').filter((l) => l.trim().startsWith('at '));

test('an AppError and its GraphQL error carry no stack frames; the message is kept', () => {
  const refusal = badRequest('The field x is bad.');
  expect(refusal).toBeInstanceOf(AppError);
  expect(frames(refusal)).toEqual([]);
  expect(refusal.stack).toContain('The field x is bad.');
  const mapped = appToGraphQL(unauthorized('No token.'));
  expect(mapped).toBeInstanceOf(GraphQLError);
  expect(frames(mapped)).toEqual([]);
  expect(mapped.extensions).toMatchObject({ code: 'UNAUTHORIZED', http: { status: 401 } });
});

test('the stack limit is as it was afterwards, also when the maker throws; other errors keep their frames', () => {
  const before = Error.stackTraceLimit;
  badRequest('x');
  expect(Error.stackTraceLimit).toBe(before);
  expect(() =>
    stackless(() => {
      throw new Error('made badly');
    }),
  ).toThrow('made badly');
  expect(Error.stackTraceLimit).toBe(before);
  expect(frames(new Error('unexpected')).length).toBeGreaterThan(0);
  expect(frames(stackless(() => new Error('refused')))).toEqual([]);
});

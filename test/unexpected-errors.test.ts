/** Failures we did not plan for: a 500 envelope quoting the request id, details only in the log. */
import { Harness } from './harness.js';

test('a database failure is a 500 quoting the request id, without internals, on REST and GraphQL', async () => {
  const h = await Harness.start();
  const t = await h.tenant();
  const token = await h.login(t);
  // Both pools closed: the ORM's (writes) and the read pool.
  await h.services.reads.end();
  await h.orm.close(true);

  const rest = await h.request('GET', `${t.root}/sites`, { token, headers: { 'x-request-id': 'req-rest-1' } });
  expect(rest.status).toBe(500);
  expect(rest.body.meta.status).toBe(500);
  expect(rest.body.meta.errors[0].code).toBe('INTERNAL_SERVER_ERROR');
  expect(rest.body.meta.errors[0].message).toContain('req-rest-1');
  expect(rest.headers.get('x-request-id')).toBe('req-rest-1');
  expect(JSON.stringify(rest.body.meta.errors)).not.toMatch(/select|from|knex|pool|at \w+ \(/i);

  const gql = await h.request('POST', '/graphql', {
    token,
    body: { query: '{ sites { items { id } } }' },
    headers: { 'x-request-id': 'req-gql-1' },
  });
  expect(gql.body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
  expect(gql.body.errors[0].message).toContain('req-gql-1');
  expect(gql.text).not.toMatch(/select|knex|pool|at \w+ \(/i);
});

/** Failures we did not plan for: a 500 envelope quoting the request id, details only in the log. */
import { Writable } from 'node:stream';
import { jest } from '@jest/globals';
import { Harness } from './harness.js';
import { createApp } from '../src/app.js';
import { createLogger } from '../src/log.js';

test('a database failure is a 500 quoting the request id, without internals, on REST and GraphQL', async () => {
  const h = await Harness.start();
  const t = await h.tenant();
  const token = await h.login(t);
  // Both pools closed: the ORM's (writes) and the read pool.
  await h.services.reads.end();
  await h.orm.close(true);

  const rest = await h.request('GET', `${t.root}/sites`, { token, headers: { 'x-request-id': 'req-rest-1' }, failureExpected: true });
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
    failureExpected: true,
  });
  // A 500 under application/json too, where the request's own mistakes are a 200: the server failed.
  expect(gql.status).toBe(500);
  expect(gql.body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
  expect(gql.body.errors[0].message).toContain('req-gql-1');
  expect(gql.text).not.toMatch(/select|knex|pool|at \w+ \(/i);
});

test("the test harness shows a 5xx's server log, its error and stack, and nothing for other answers", async () => {
  const { h, t, token } = await Harness.withTenant();
  const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const fine = await h.request('GET', `${t.root}/sites`, { token });
    expect([fine.status, fine.log]).toEqual([200, undefined]);
    expect(printed).not.toHaveBeenCalled();
    await h.services.reads.end();
    await h.orm.close(true);
    const failed = await h.request('GET', `${t.root}/sites`, { token, headers: { 'x-request-id': 'req-harness-1' } });
    expect(failed.status).toBe(500);
    const error = { msg: 'unexpected error', requestId: 'req-harness-1', err: expect.objectContaining({ stack: expect.stringMatching(/\n\s+at /) }) };
    expect(failed.log).toContainEqual(expect.objectContaining(error));
    expect(printed).toHaveBeenCalledTimes(1);
    expect(printed.mock.calls[0][0]).toMatch(/^GET \/api\/v1\/\S+\/sites answered 500; the server logged:\n[^]*"stack": "Error: Cannot use a pool[^"]*\n\s+at [^]*"msg": "unexpected error"/);
    // Asked for: on the reply only.
    const expected = await h.request('GET', `${t.root}/sites`, { token, failureExpected: true });
    expect(expected.log).toContainEqual(expect.objectContaining({ msg: 'unexpected error', requestId: expected.headers.get('x-request-id') }));
    expect(printed).toHaveBeenCalledTimes(1);
  } finally {
    printed.mockRestore();
  }
});

test('a /graphql error Yoga catches before execution (a body that breaks off) quotes and logs the id of its response', async () => {
  const { h, token } = await Harness.withTenant();
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  const app = createApp({ ...h.services, log });
  try {
    // A body stream that fails, as one whose client goes away mid-way: no Content-Length, so it is read as it comes.
    const body = new ReadableStream({ pull: (c) => c.error(new Error('connection lost')) });
    const init = { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body, duplex: 'half' };
    const res = await app.fetch(new Request('http://quire.test/graphql', init as RequestInit), { req: { socket: { remoteAddress: h.address } } });
    const id = res.headers.get('x-request-id');
    const answer = await res.json();
    expect(res.status).toBe(500);
    expect(answer.errors[0]).toMatchObject({ message: `An unexpected error occurred. Quote request id ${id} when reporting it.`, extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: id } });
    const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg !== 'request');
    expect(logged).toEqual([expect.objectContaining({ msg: 'unexpected error', requestId: id })]);
    // The access log's line names the same id.
    expect(lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request')).toMatchObject({ requestId: id, status: 500 });
  } finally {
    await h.stop();
  }
});

/**
 * A failure while the envelope is built (inside SOFA's execute hook, src/rest/run-route.ts) is
 * answered like any unplanned failure: a 500 envelope quoting the request id, details only in the log.
 */
import { jest } from '@jest/globals';

const actual = await import('../../src/rest/envelope.js');
jest.unstable_mockModule('../../src/rest/envelope.js', () => ({
  ...actual,
  successBody: (s: Parameters<typeof actual.successBody>[0]) => {
    if (new URL(s.request.url).pathname.endsWith('/sites')) throw new TypeError('secret internals of the envelope');
    return actual.successBody(s);
  },
}));
const { Harness } = await import('../harness.js');

test('a failure building the envelope is a 500 quoting the request id, without its message', async () => {
  const h = await Harness.start();
  try {
    const t = await h.tenant();
    const token = await h.login(t);
    const r = await h.request('GET', `${t.root}/sites`, { token, headers: { 'x-request-id': 'req-envelope-1' }, failureExpected: true });
    expect(r.status).toBe(500);
    expect(r.body.meta.status).toBe(500);
    expect(r.body.meta.errors[0].code).toBe('INTERNAL_SERVER_ERROR');
    expect(r.body.meta.errors[0].message).toContain('req-envelope-1');
    expect(r.headers.get('x-request-id')).toBe('req-envelope-1');
    expect(r.text).not.toContain('secret internals');
    // The same route's neighbours still answer: only this envelope failed.
    const groups = await h.request('GET', `${t.root}/groups`, { token });
    expect(groups.status).toBe(200);
  } finally {
    await h.stop();
  }
});

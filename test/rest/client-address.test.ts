/**
 * The caller's address (lastIpAddress and the login throttles' keys) is the socket's address;
 * X-Forwarded-For counts only when the socket is a trusted proxy (TRUSTED_PROXIES), and then only
 * up to the first hop that is not one.
 */
import { randomUUID } from 'node:crypto';
import { trustList } from '../../src/addresses.js';
import { resolveClientAddress } from '../../src/rest/client-address.js';
import { Harness, type TestTenant } from '../harness.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const PROXY = '10.1.2.3';

describe('resolveClientAddress', () => {
  const list = trustList(['10.0.0.0/8', '2001:db8::1']);

  test('an untrusted socket is the caller, whatever X-Forwarded-For says', () => {
    expect(resolveClientAddress(list, '198.51.100.1', '203.0.113.9')).toBe('198.51.100.1');
    expect(resolveClientAddress(trustList([]), '10.1.1.1', '203.0.113.9')).toBe('10.1.1.1');
  });

  test('behind trusted proxies, the right-most hop that is not one', () => {
    expect(resolveClientAddress(list, '10.0.0.1', '1.1.1.1, 203.0.113.9, 10.9.9.9')).toBe('203.0.113.9');
    expect(resolveClientAddress(list, '2001:db8::1', '203.0.113.9')).toBe('203.0.113.9');
    expect(resolveClientAddress(list, '::ffff:10.0.0.1', '::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  test('a hop that is no address stops the walk at the last proxy\'s word', () => {
    expect(resolveClientAddress(list, '10.0.0.1', 'evil, 203.0.113.9')).toBe('203.0.113.9');
    expect(resolveClientAddress(list, '10.0.0.1', 'evil')).toBe('10.0.0.1');
    expect(resolveClientAddress(list, '10.0.0.1', null)).toBe('10.0.0.1');
  });
});

describe('through the token endpoint', () => {
  let h: Harness;
  let t: TestTenant;
  beforeAll(async () => {
    h = await Harness.start({ trustedProxies: ['10.0.0.0/8'], tokenMaxFailuresPerAddress: 3, loginLockSeconds: 60 });
    t = await h.tenant();
  });
  afterAll(() => h.stop());

  const login = (password: string, from: string, xff?: string) =>
    h.request('POST', '/oauth/token', {
      from,
      raw: new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: t.adminUserId, password }).toString(),
      headers: { ...FORM, ...(xff ? { 'x-forwarded-for': xff } : {}) },
    });

  test('an untrusted sender\'s X-Forwarded-For is ignored for lastIpAddress', async () => {
    const token = (await login(t.password, '198.51.100.20', '203.0.113.50')).body.access_token as string;
    const me = await h.request('GET', `${t.root}/users/me`, { token });
    expect(me.body.data.lastIpAddress).toBe('198.51.100.20');
  });

  test('a trusted proxy\'s X-Forwarded-For names the caller', async () => {
    const token = (await login(t.password, PROXY, '203.0.113.51')).body.access_token as string;
    const me = await h.request('GET', `${t.root}/users/me`, { token });
    expect(me.body.data.lastIpAddress).toBe('203.0.113.51');
  });

  test('an untrusted sender cannot escape its address\'s throttle by inventing X-Forwarded-For hops', async () => {
    const sender = '198.51.100.99';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await login(`wrong-${randomUUID()}`, sender, `203.0.113.${100 + i}`)).status);
    expect(answers.slice(0, 2)).toEqual([400, 400]);
    expect(answers[3]).toBe(429);
    // Another sender is not affected.
    expect((await login(t.password, '198.51.100.98')).status).toBe(200);
  });
});

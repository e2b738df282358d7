/**
 * The budget's count by tenant (src/body-budget.ts), without a server: what it keeps per tenant.
 * Over HTTP: test/rest/body-budget.test.ts.
 */
import { BodyBudget } from '../src/body-budget.js';
import { recordSender } from '../src/request-sender.js';

const budget = () => new BodyBudget({ bytes: 1024, tenantBytes: 512, tokenBodyBytes: 64, graceSeconds: 20, minBytesPerSecond: 500 });
const request = () => new Request('http://x/', { method: 'POST' });

test('an empty body takes nothing and leaves no entry for its tenant, with or without one', () => {
  const b = budget();
  const signed = request();
  recordSender(signed, { tenantId: 't1', userId: 'u1' });
  b.take(signed, 0);
  b.take(request(), 0);
  expect(b['byTenant'].size).toBe(0);
  expect(b.release(signed)).toBe(0);
  expect(b['byTenant'].size).toBe(0);
});

test('a tenant holding bytes has its entry until they come back', () => {
  const b = budget();
  const r = request();
  recordSender(r, { tenantId: 't1', userId: 'u1' });
  b.take(r, 100);
  expect([b.heldBy('t1'), b.inUse, b['byTenant'].size]).toEqual([100, 100, 1]);
  expect(b.release(r)).toBe(100);
  expect([b.heldBy('t1'), b.inUse, b['byTenant'].size]).toEqual([0, 0, 0]);
});

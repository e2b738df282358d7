/**
 * What keeping four values per request costs, in WeakMaps and WeakSets keyed by the request or in
 * slots on it (src/request-slot.ts): CPU per fetch Request made and given four values, the
 * garbage collector's share included.   npx tsx bench/request-slots.ts
 */
import { Request } from '@whatwg-node/fetch';
import { requestSlot } from '../src/request-slot.js';

const N = 100_000;
const sender = { tenantId: 't', userId: 'u' };
const made = (i: number) => new Request(`http://localhost/api/v1/demo/main/sites/${i}`, { headers: { authorization: 'Bearer x' } });

const senders = new WeakMap<Request, typeof sender>();
const releasedA = new WeakSet<Request>();
const releasedB = new WeakSet<Request>();
const started = new WeakMap<Request, number>();
function inWeakCollections() {
  for (let i = 0; i < N; i++) {
    const r = made(i);
    senders.set(r, sender);
    releasedA.add(r);
    releasedB.add(r);
    started.set(r, performance.now());
    if (senders.get(r) !== sender) throw new Error('lost');
  }
}

const slots = { sender: requestSlot<typeof sender>('sender'), a: requestSlot<true>('a'), b: requestSlot<true>('b'), started: requestSlot<number>('started') };
function inSlots() {
  for (let i = 0; i < N; i++) {
    const r = made(i);
    slots.sender.set(r, sender);
    slots.a.set(r, true);
    slots.b.set(r, true);
    slots.started.set(r, performance.now());
    if (slots.sender.get(r) !== sender) throw new Error('lost');
  }
}

for (let round = 1; round <= 2; round++) {
  for (const [name, run] of [['WeakMap/WeakSet', inWeakCollections], ['slots', inSlots]] as const) {
    run();
    const each: string[] = [];
    for (let k = 0; k < 5; k++) {
      const cpu0 = process.cpuUsage();
      run();
      const cpu = process.cpuUsage(cpu0);
      each.push(((cpu.user + cpu.system) / N).toFixed(2));
    }
    process.stdout.write(`round ${round}, ${name}: ${each.join(' ')} µs a request\n`);
  }
}

/** A request slot keeps one value per request under a key of its own. */
import { requestSlot } from '../src/request-slot.js';

test('each slot is its own key, of each request apart; setting undefined empties it', () => {
  const a = requestSlot<number>('same');
  const b = requestSlot<number>('same');
  const one = new Request('http://localhost/one');
  const two = new Request('http://localhost/two');
  a.set(one, 1);
  b.set(one, 2);
  a.set(two, 3);
  expect([a.get(one), b.get(one), a.get(two), b.get(two)]).toEqual([1, 2, 3, undefined]);
  a.set(one, undefined);
  expect([a.get(one), b.get(one)]).toEqual([undefined, 2]);
});

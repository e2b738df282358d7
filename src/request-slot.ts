/**
 * A value kept on a request for as long as the request lives (its id, its sender, when it
 * started), under a key of its own. On the request object itself, not in a WeakMap or WeakSet:
 * each entry of those is an ephemeron the garbage collector traces apart, and the four a read
 * made cost it about 1.5–2 µs of CPU more than four properties (bench/request-slots.ts).
 */
export interface RequestSlot<T> {
  get(request: Request): T | undefined;
  /** Sets the value; `undefined` empties the slot. */
  set(request: Request, value: T | undefined): void;
}

export function requestSlot<T>(name: string): RequestSlot<T> {
  const key = Symbol(name);
  type Holding = Record<typeof key, T | undefined>;
  return {
    get: (request) => (request as unknown as Holding)[key],
    set: (request, value) => {
      (request as unknown as Holding)[key] = value;
    },
  };
}

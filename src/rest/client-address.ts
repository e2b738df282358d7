/**
 * The caller's address: the socket's remote address, unless that is a trusted proxy
 * (TRUSTED_PROXIES); then X-Forwarded-For is read from the right, past every trusted hop, to the
 * first one that is not. Anyone can write X-Forwarded-For; only our own proxies' entries count.
 */
import { isIP, type BlockList } from 'node:net';
import { plainAddress, trusted } from '../addresses.js';
import { requestSlot } from '../request-slot.js';

/** What the HTTP server hands Yoga as its server context (Node's request); tests give the same shape. */
export interface ServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

const ADDRESS = requestSlot<string>('clientAddress');

export function resolveClientAddress(list: BlockList, socketAddress: string | undefined, forwardedFor: string | null): string {
  let address = plainAddress(socketAddress ?? '');
  if (!forwardedFor || !trusted(list, address)) return address;
  const hops = forwardedFor.split(',').map((h) => plainAddress(h.trim()));
  while (hops.length && trusted(list, address)) {
    const next = hops.pop()!;
    // A hop that is no address was written by whoever sent it: the last proxy's word stands.
    if (!isIP(next)) break;
    address = next;
  }
  return address;
}

export function setClientAddress(request: Request, list: BlockList, serverContext: ServerContext | undefined): void {
  const address = resolveClientAddress(list, serverContext?.req?.socket?.remoteAddress, request.headers.get('x-forwarded-for'));
  ADDRESS.set(request, address);
}

/** The address set for this request by useClientAddress ('' when the server gave none). */
export function clientAddressOf(request: Request): string {
  return ADDRESS.get(request) ?? '';
}

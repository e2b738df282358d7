/**
 * MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS: the connections the server holds open at once.
 * Nothing bounded them, and a client holding thousands of idle keep-alive or half-sent
 * connections ran the process out of file descriptors: the database pools, the file store and
 * the logs then failed with EMFILE for every client. Past MAX_CONNECTIONS Node itself closes a
 * new connection as it is accepted (`server.maxConnections`, its `'drop'` event, which Node does
 * not log). Past MAX_CONNECTIONS_PER_ADDRESS from one socket address, a new connection is
 * closed here as it is accepted, before a byte of it is read. Either way the client gets no
 * answer: nothing was read to answer. The address is the socket's (an IPv4 caller on a
 * dual-stack socket as plain IPv4, as src/rest/client-address.ts has it), never X-Forwarded-For,
 * which comes with a request; a trusted proxy's connections (TRUSTED_PROXIES) are not counted
 * per address, since they carry many callers'.
 */
import type { BlockList, Server, Socket } from 'node:net';
import type { Logger } from './log.js';
import { plainAddress, trusted } from './addresses.js';

/** Why a connection was closed as it came: the labels of `http_connections_refused_total` (src/metrics.ts). */
export type ConnectionRefusal = 'server_full' | 'address_full';

/** At most one warning per reason in this long: a flood of refusals is a flood of connections, not of log lines. */
const WARN_EVERY_MS = 60_000;

export interface ConnectionSettings {
  max: number;
  /** 0: no limit per address. */
  perAddress: number;
  proxies: BlockList;
}

export class ConnectionLimits {
  private readonly byAddress = new Map<string, number>();
  private readonly counts = new Map<ConnectionRefusal, number>();
  private readonly warned = new Map<ConnectionRefusal, number>();
  private held = 0;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly log: Logger,
  ) {}

  /** Connections open now (those closed as they came not among them). */
  get open(): number {
    return this.held;
  }

  /** Connections refused since the start, by why. */
  refusals(): IterableIterator<[ConnectionRefusal, number]> {
    return this.counts.entries();
  }

  /** Puts `server` under the limits: call before it listens. */
  guard(server: Server): void {
    server.maxConnections = this.settings.max;
    server.on('drop', (data?: { remoteAddress?: string }) => this.refuse('server_full', plainAddress(data?.remoteAddress ?? '')));
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  private admit(socket: Socket): void {
    const address = plainAddress(socket.remoteAddress ?? '');
    const { perAddress, proxies } = this.settings;
    const counted = perAddress > 0 && !trusted(proxies, address);
    const n = counted ? (this.byAddress.get(address) ?? 0) : 0;
    if (counted && n >= perAddress) {
      socket.destroy();
      this.refuse('address_full', address);
      return;
    }
    this.held++;
    if (counted) this.byAddress.set(address, n + 1);
    socket.once('close', () => {
      this.held--;
      if (!counted) return;
      const left = this.byAddress.get(address)! - 1;
      if (left === 0) this.byAddress.delete(address);
      else this.byAddress.set(address, left);
    });
  }

  private refuse(reason: ConnectionRefusal, address: string): void {
    const refused = (this.counts.get(reason) ?? 0) + 1;
    this.counts.set(reason, refused);
    const now = Date.now();
    if (now - (this.warned.get(reason) ?? -Infinity) < WARN_EVERY_MS) return;
    this.warned.set(reason, now);
    const limit = reason === 'server_full' ? `MAX_CONNECTIONS (${this.settings.max})` : `MAX_CONNECTIONS_PER_ADDRESS (${this.settings.perAddress})`;
    this.log.warn({ reason, address, refusedSinceStart: refused }, `connection closed as it came: ${limit} reached; at most one such line a minute`);
  }
}

/**
 * Socket addresses as the service compares them: an IPv4 caller on a dual-stack socket as plain
 * IPv4, and the TRUSTED_PROXIES list. Read per request (src/rest/client-address.ts) and per
 * connection (src/connection-limits.ts).
 */
import { BlockList, isIP } from 'node:net';

/** `::ffff:192.0.2.1` (an IPv4 caller on a dual-stack socket) is `192.0.2.1`. */
export function plainAddress(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

export function trustList(proxies: string[]): BlockList {
  const list = new BlockList();
  for (const p of proxies) {
    const [ip, bits] = p.split('/');
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return list;
}

export const trusted = (list: BlockList, address: string): boolean => {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
};

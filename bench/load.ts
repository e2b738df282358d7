/** The load generator: autocannon in this process, fixed connections and duration, loopback only. */
import autocannon from 'autocannon';

export interface LoadTarget {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  bytesPerSec: number;
}

export async function load(t: LoadTarget, seconds: number, connections: number): Promise<LoadResult> {
  const host = new URL(t.url).hostname;
  if (host !== '127.0.0.1') throw new Error(`refusing to load a non-loopback host: ${host}`);
  const r = await autocannon({
    url: t.url,
    method: t.method,
    headers: t.headers,
    body: t.body,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 30,
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    bytesPerSec: r.throughput.average,
  };
}

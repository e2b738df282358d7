/** Lifecycle shared by the two benchmark servers: listen on loopback, report the port and CPU time, stop on signal or parent exit. */
import type http from 'node:http';

export async function serveAsChild(server: http.Server, close: () => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // The load generator abandons its last requests mid-flight; their handlers still run for up to
    // about a second (a 200-group read under load). Closing the pool under them only logs errors.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await close();
    // A normal exit, so that --cpu-prof writes its profile.
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.on('disconnect', () => void stop());
  // The runner asks for this process's CPU time around each measured run.
  process.on('message', (m) => {
    if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    }
  });
  process.send?.({ port: (server.address() as { port: number }).port });
}

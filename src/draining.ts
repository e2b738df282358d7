/** Whether this process is shutting down (src/server.ts sets it on SIGTERM/SIGINT): its answers then close their connection. */
let draining = false;

export const startDraining = () => {
  draining = true;
};

export const isDraining = () => draining;

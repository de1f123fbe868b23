// A free TCP port, for listeners that must share one chosen port. uWS sets SO_REUSEPORT only on
// a fixed port (asked for port 0 it binds exclusively), so front-end threads asked to listen on
// "any port" (tests, the bench) first pick one here, then all bind it with SO_REUSEPORT.

import net from 'node:net';

/** A port nothing listens on at this moment on `host` (the OS's pick for port 0). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

// A full garbage collection in another Node process, through its inspector (started with
// `--inspect=127.0.0.1:0`): `HeapProfiler.collectGarbage` over the DevTools protocol. The
// load/unload bench uses it to tell memory the server still holds from garbage V8 has not yet
// collected; it is a measuring instrument, not something a server in production would run.

import WebSocket from 'ws';

/** The inspector's WebSocket URL from the line Node prints to stderr when it starts listening. */
export function inspectorUrl(lines: readonly string[]): string | null {
  for (const line of lines) {
    const m = /Debugger listening on (ws:\/\/\S+)/.exec(line);
    if (m !== null) return m[1] ?? null;
  }
  return null;
}

export class InspectorGc {
  private nextId = 1;
  private readonly pending = new Map<number, (error: string | null) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString('utf8')) as { id?: number; error?: { message: string } };
      if (msg.id === undefined) return; // an event, not a reply
      this.pending.get(msg.id)?.(msg.error?.message ?? null);
      this.pending.delete(msg.id);
    });
  }

  static connect(url: string): Promise<InspectorGc> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('open', () => resolve(new InspectorGc(socket)));
      socket.once('error', reject);
    });
  }

  /** Resolves once the process has run a full GC of its main thread's heap. */
  collect(): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (error) => (error === null ? resolve() : reject(new Error(error))));
      this.socket.send(JSON.stringify({ id, method: 'HeapProfiler.collectGarbage' }));
    });
  }

  close(): void {
    this.socket.close();
  }
}

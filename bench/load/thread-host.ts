// The thread side of the load driver: owns one LoadEngine and its WindowRecorder, and answers the
// driver's commands in order over a MessagePort (a worker's parentPort, or one end of a
// MessageChannel when the engine runs on the driver's own main thread).

import type { LoadEngine } from './load-engine.js';
import type { ThreadCommand, ThreadReply } from './messages.js';
import { WindowRecorder } from './window-recorder.js';

export interface PortLike {
  on(event: 'message', listener: (message: ThreadCommand) => void): unknown;
  postMessage(message: ThreadReply): void;
}

export function serveThread(port: PortLike, createEngine: () => Promise<LoadEngine>): void {
  const recorder = new WindowRecorder();
  const reply = (m: ThreadReply): void => port.postMessage(m);
  const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
  // Commands run one after another: a snapshot that arrives while a stop is draining waits for it.
  let chain: Promise<LoadEngine | null> = createEngine().then(
    (engine) => {
      reply({ type: 'ready' });
      return engine;
    },
    (e: unknown) => {
      reply({ type: 'failed', message: `load thread failed to start: ${message(e)}` });
      return null;
    },
  );

  const handle = async (engine: LoadEngine | null, cmd: ThreadCommand): Promise<ThreadReply> => {
    if (engine === null) return { type: 'failed', message: 'load thread has no engine' };
    switch (cmd.type) {
      case 'start':
        await engine.start(cmd.share, recorder);
        recorder.reset();
        return { type: 'started' };
      case 'snapshot':
        return { type: 'window', window: recorder.take(engine.inFlight(), engine.queued()) };
      case 'stop':
        await engine.stop();
        return { type: 'stopped' };
      case 'close':
        await engine.close();
        return { type: 'closed' };
    }
  };

  port.on('message', (cmd) => {
    chain = chain.then(async (engine) => {
      try {
        reply(await handle(engine, cmd));
      } catch (e) {
        reply({ type: 'failed', message: message(e) });
      }
      return engine;
    });
  });
}

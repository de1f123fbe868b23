// The front end's ceiling: a uWebSockets.js route that does what every infer request costs before
// any inference — read the whole body and JSON-parse it (the JSON header only, for the binary
// tensor extension) — then returns a fixed small KServe reply. No model, no workers: what
// infernode reaches at best on this machine with the same front end. Run as a child process:
//   node dist/bench/targets/uws-ceiling-server.js --name <model> --outputs OUTPUT0[,OUTPUT1] [--port N]
// It prints one JSON line with "httpPort" once it listens, like infernode.

import { parseArgs } from 'node:util';
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { loadUws } from 'infernode/tooling';

function main(): void {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      outputs: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
    },
  });
  if (values.name === undefined || values.outputs === undefined) {
    throw new Error('usage: uws-ceiling-server --name <model> --outputs <names> [--port N]');
  }
  const loaded = loadUws();
  if (!loaded.ok) throw new Error(loaded.reason);
  const uws = loaded.uws;
  // Built once: the reply names the outputs the preflight expects, with a one-element tensor each.
  const reply = JSON.stringify({
    model_name: values.name,
    model_version: '1',
    outputs: values.outputs
      .split(',')
      .map((name) => ({ name, datatype: 'FP32', shape: [1, 1], data: [0] })),
  });

  const infer = (res: HttpResponse, headerLength: number): void => {
    let aborted = false;
    const chunks: Buffer[] = [];
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((chunk, isLast) => {
      // uWS reuses the chunk's memory after this callback returns: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (!isLast || aborted) return;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      let status = '200 OK';
      let text = reply;
      try {
        JSON.parse(body.toString('utf8', 0, headerLength > 0 ? headerLength : body.length));
      } catch {
        status = '400 Bad Request';
        text = '{"error":"bad JSON"}';
      }
      res.cork(() => {
        res.writeStatus(status).writeHeader('content-type', 'application/json').end(text);
      });
    });
  };

  const app = uws.App();
  app.any('/*', (res, req) => {
    const url = req.getUrl();
    const method = req.getMethod().toLowerCase();
    if (method === 'get' && url === '/v2/health/ready') {
      res.end('');
      return;
    }
    if (method === 'post' && url.endsWith('/infer')) {
      infer(res, Number(req.getHeader('inference-header-content-length') || '0'));
      return;
    }
    res.writeStatus('404 Not Found').end('{"error":"Not Found"}');
  });
  app.listen(values.host, Number(values.port), uws.LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => {
    if (socket === false) {
      process.stderr.write(`uws-ceiling-server: cannot listen on port ${values.port}\n`);
      process.exit(1);
    }
    const port = uws.us_socket_local_port(socket);
    process.stdout.write(
      `${JSON.stringify({ msg: 'uws ceiling server listening', httpPort: port, pid: process.pid })}\n`,
    );
    const shutdown = (): void => {
      uws.us_listen_socket_close(socket);
      app.close?.();
      process.exit(0);
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  });
}

try {
  main();
} catch (e: unknown) {
  process.stderr.write(
    `uws-ceiling-server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
}

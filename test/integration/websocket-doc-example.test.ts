// The byte-level exchange of docs/websocket-protocol.md, replayed as a client following the document
// would: the real `infernode` command serving the bundled model_repository/ (what `npm start` runs),
// on each front end, sent the document's request bytes and expected to answer with its response
// bytes exactly.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadUws } from '../../src/http/uws/uws-loader.js';
import { MSGPACK_PROTOCOL, WS_PATH } from '../../src/websocket/ws-protocol.js';
import { MODEL_REPOSITORY } from '../helpers/paths.js';
import { spawnServer, type SpawnedServer } from '../helpers/spawn-server.js';
import { DOC_EXAMPLES, docExample } from '../helpers/websocket-doc.js';
import { RawSocket } from './websocket-raw-socket.js';

const FRONT_ENDS = [
  { name: 'uws', skip: loadUws().ok ? false : 'uWS binary not available here' },
  { name: 'node', skip: false },
] as const;

for (const fe of FRONT_ENDS) {
  void describe(
    `the document's byte-level example on --http-front-end=${fe.name}`,
    { skip: fe.skip },
    () => {
      let server: SpawnedServer;
      let raw: RawSocket;
      before(async () => {
        server = await spawnServer([
          `--model-repository=${MODEL_REPOSITORY}`,
          `--http-front-end=${fe.name}`,
          '--allow-metrics=false',
        ]);
        raw = await RawSocket.open(
          `${server.base.replace('http', 'ws')}${WS_PATH}`,
          MSGPACK_PROTOCOL,
        );
      });
      after(async () => {
        raw.close();
        server.child.kill('SIGTERM');
        assert.equal(await server.exited, 0);
      });

      void it('answers the example request with the example response, byte for byte', async () => {
        raw.send(docExample(DOC_EXAMPLES.request));
        const reply = await raw.nextFrame();
        assert.equal(reply.toString('hex'), docExample(DOC_EXAMPLES.response).toString('hex'));
      });

      void it('answers the example error request with the example error, byte for byte', async () => {
        raw.send(docExample(DOC_EXAMPLES.errorRequest));
        const reply = await raw.nextFrame();
        assert.equal(reply.toString('hex'), docExample(DOC_EXAMPLES.errorResponse).toString('hex'));
      });
    },
  );
}

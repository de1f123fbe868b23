// The client refuses a protocol it does not know when it is made, naming the ones it knows,
// rather than failing later with a TypeError from inside its first call.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLIENT_PROTOCOLS,
  InferenceClient,
  type ClientProtocol,
} from '../../../src/client/inference-client.js';

void describe('InferenceClient protocol', () => {
  void it('refuses an unknown protocol with the known ones named', () => {
    assert.throws(
      () => new InferenceClient({ url: 'http://127.0.0.1:1', protocol: 'http' as ClientProtocol }),
      (e: unknown) =>
        e instanceof TypeError &&
        /protocol must be one of http-json, http-binary, ws, ws-flatbuffers, grpc, got "http"/.test(
          e.message,
        ),
    );
  });

  void it('defaults to http-binary', async () => {
    const client = new InferenceClient({ url: 'http://127.0.0.1:1' });
    assert.equal(client.protocol, 'http-binary');
    assert.ok(CLIENT_PROTOCOLS.includes(client.protocol));
    await client.close();
  });
});

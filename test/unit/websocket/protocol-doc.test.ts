// docs/websocket-protocol.md is the contract for clients in other languages: it must name the
// path, subprotocols, close codes and limits the code uses, and its byte-level example must be the
// bytes the codecs really produce.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { msgpackClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import { msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import {
  CLOSE_CODES,
  DEFAULT_WS_LIMITS,
  MAX_FRAME_DEPTH,
  WS_PATH,
  WS_PROTOCOLS,
} from '../../../src/websocket/ws-protocol.js';
import { REPO_ROOT } from '../../helpers/paths.js';

const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'websocket-protocol.md'), 'utf8');

/** The hex bytes of a fenced example block: every 2-digit hex token before the commentary. */
function exampleBytes(afterHeading: string): string {
  const start = doc.indexOf('```', doc.indexOf(afterHeading));
  const block = doc.slice(start + 3, doc.indexOf('```', start + 3));
  return block
    .split('\n')
    .map((line) => (line.match(/^(?:[0-9a-f]{2}(?: +|$))+/)?.[0] ?? '').replace(/\s+/g, ''))
    .join('');
}

/** The default column of the flow-control table's row for `flag`. */
function limitDefault(flag: string): string | undefined {
  const row = doc
    .split('\n')
    .find((line) => line.startsWith('|') && line.includes(`(\`${flag}\`)`));
  assert.ok(row !== undefined, `no row for ${flag}`);
  return row.split('|')[2]?.trim();
}

const mib = (bytes: number): string => `${bytes / (1024 * 1024)} MiB`;

void describe('docs/websocket-protocol.md', () => {
  void it('names the path, subprotocols, close codes and limits', () => {
    assert.ok(doc.includes(WS_PATH));
    for (const p of WS_PROTOCOLS) assert.ok(doc.includes(`\`${p}\``), p);
    for (const code of Object.values(CLOSE_CODES))
      assert.ok(doc.includes(`\`${code}\``), String(code));
    assert.ok(doc.includes(`deeper than ${MAX_FRAME_DEPTH} levels`));
  });

  void it('states each limit flag with its exact default', () => {
    assert.equal(DEFAULT_WS_LIMITS.maxFrameBytes, 64 * 1024 * 1024);
    assert.equal(limitDefault('--ws-max-frame-size'), '64 MiB');
    assert.equal(limitDefault('--ws-max-frame-size'), mib(DEFAULT_WS_LIMITS.maxFrameBytes));
    assert.equal(limitDefault('--ws-max-inflight'), String(DEFAULT_WS_LIMITS.maxInflight));
    assert.equal(limitDefault('--ws-max-queued-bytes'), mib(DEFAULT_WS_LIMITS.maxQueuedBytes));
    assert.ok(
      doc
        .replace(/\s+/g, ' ')
        .includes(`buffered amount is under ${mib(DEFAULT_WS_LIMITS.highWaterBytes)}`),
      'the high-water mark',
    );
  });

  void it('shows the exact bytes of the example request and response', () => {
    const request = msgpackClientCodec.encodeRequest(
      1,
      'identity_int32',
      [tensor('INPUT0', 'INT32', [1, 2], Int32Array.of(7, 8))],
      {},
    );
    assert.equal(
      exampleBytes('A request for `identity_int32`'),
      Buffer.from(request).toString('hex'),
    );
    const response = msgpackCodec.encodeResponse(1, {
      model_name: 'identity_int32',
      model_version: '1',
      outputs: [
        {
          name: 'OUTPUT0',
          datatype: 'INT32',
          shape: [1, 2],
          data: new Uint8Array(Int32Array.of(7, 8).buffer),
          binary: false,
        },
      ],
    });
    assert.equal(exampleBytes('Its response'), Buffer.from(response).toString('hex'));
  });
});

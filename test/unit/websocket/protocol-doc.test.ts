// docs/websocket-protocol.md is the contract for clients in other languages: it must name the
// path, subprotocols, close codes and limits the code uses, its byte-level examples must be the
// bytes the codecs really produce, and its error-code table must be the catalog's.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  renderErrorCodeTable,
  TABLE_BEGIN,
  TABLE_END,
  withTable,
} from '../../../scripts/render-error-codes.js';
import { msgpackClientCodec } from '../../../src/client/client-codecs.js';
import { tensor } from '../../../src/client/client-tensor.js';
import { ERROR_CATALOG } from '../../../src/errors.js';
import { msgpackCodec } from '../../../src/websocket/msgpack-frames.js';
import {
  CLOSE_CODES,
  DEFAULT_WS_LIMITS,
  MAX_FRAME_DEPTH,
  MAX_ID_BYTES,
  MAX_INTEGER_ID,
  WS_PATH,
  WS_PROTOCOLS,
} from '../../../src/websocket/ws-protocol.js';
import { DOC_EXAMPLES, docExample, WEBSOCKET_DOC as doc } from '../../helpers/websocket-doc.js';

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
  void it('names the path, subprotocols, close codes, limits and id range', () => {
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
    assert.ok(doc.includes(`1 to ${MAX_ID_BYTES} bytes`));
    assert.equal(MAX_INTEGER_ID, 2 ** 53 - 1);
    assert.ok(doc.includes(`2^53−1 (${MAX_INTEGER_ID}`));
  });

  void it('shows the exact bytes the codecs produce for the example frames', () => {
    const request = msgpackClientCodec.encodeRequest(
      1,
      'simple',
      [
        tensor(
          'INPUT0',
          'INT32',
          [1, 16],
          Int32Array.from({ length: 16 }, (_, i) => i),
        ),
        tensor('INPUT1', 'INT32', [1, 16], new Int32Array(16).fill(1)),
      ],
      { outputs: ['OUTPUT0'] },
    );
    assert.equal(
      docExample(DOC_EXAMPLES.request).toString('hex'),
      Buffer.from(request).toString('hex'),
    );
    const response = msgpackCodec.encodeResponse(
      { key: 1 },
      {
        model_name: 'simple',
        model_version: '1',
        outputs: [
          {
            name: 'OUTPUT0',
            datatype: 'INT32',
            shape: [1, 16],
            data: new Uint8Array(Int32Array.from({ length: 16 }, (_, i) => i + 1).buffer),
            binary: false,
          },
        ],
      },
    );
    assert.equal(
      docExample(DOC_EXAMPLES.response).toString('hex'),
      Buffer.from(response).toString('hex'),
    );
    const error = msgpackCodec.encodeError(
      { key: 2 },
      { code: 'MODEL_NOT_FOUND', message: "Request for unknown model: 'nope' is not found" },
    );
    assert.equal(
      docExample(DOC_EXAMPLES.errorResponse).toString('hex'),
      Buffer.from(error).toString('hex'),
    );
    assert.equal(
      docExample(DOC_EXAMPLES.errorRequest).toString('hex'),
      Buffer.from(msgpackClientCodec.encodeRequest(2, 'nope', [], {})).toString('hex'),
    );
  });

  void it('lists every code of the error catalog, as scripts/render-error-codes.ts renders it', () => {
    assert.equal(
      withTable(doc, renderErrorCodeTable()),
      doc,
      'the error-code table is stale: run node dist/scripts/render-error-codes.js',
    );
    const table = doc.slice(doc.indexOf(TABLE_BEGIN), doc.indexOf(TABLE_END));
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      assert.match(table, new RegExp(`\\| \`${code}\` +\\| ${entry.status} +\\|`), code);
    }
  });
});

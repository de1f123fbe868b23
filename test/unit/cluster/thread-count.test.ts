// --http-thread-count: its default per host size, and the reasons the server runs one thread.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultHttpThreadCount,
  threadsUnavailableReason,
} from '../../../src/cluster/thread-count.js';
import { reusePortUnsupported } from '../../../src/http/select-front-end.js';

void describe('front-end thread count', () => {
  void it('defaults to half the cores, between 1 and 8', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 8, 16, 64, 128].map(defaultHttpThreadCount),
      [1, 1, 1, 2, 4, 8, 8, 8],
    );
  });

  void it('knows which Node versions let node:http share a port', () => {
    assert.equal(reusePortUnsupported('uws', '20.20.2'), undefined);
    assert.match(
      reusePortUnsupported('node-http', '20.20.2') ?? '',
      /before Node 22\.12; this is Node 20\.20\.2/,
    );
    assert.match(reusePortUnsupported('node-http', '22.11.0') ?? '', /22\.12/);
    assert.equal(reusePortUnsupported('node-http', '22.12.0'), undefined);
    assert.equal(reusePortUnsupported('node-http', '24.21.0'), undefined);
  });

  void it('says why threads cannot serve, or nothing when they can', () => {
    const ok = { frontEndKind: 'uws', traceStages: false, maxConnections: 0 };
    assert.equal(threadsUnavailableReason(ok), undefined);
    assert.match(threadsUnavailableReason({ ...ok, traceStages: true }) ?? '', /--trace-stages/);
    assert.match(
      threadsUnavailableReason({ ...ok, maxConnections: 10 }) ?? '',
      /--http-max-connections/,
    );
  });
});

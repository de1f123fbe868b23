// --grpc-restricted-protocol parsing: Triton's spelling, its protocol groups, and the refusals.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRestriction, restrictionsByRpc } from '../../../src/grpc/restricted-protocol.js';

void describe('--grpc-restricted-protocol', () => {
  void it('parses protocols, header key and value, and maps each RPC of the groups', () => {
    const r = parseRestriction('inference,model-repository:Admin-Key=s3cr=t');
    assert.deepEqual(r, {
      protocols: ['inference', 'model-repository'],
      header: 'triton-grpc-protocol-admin-key',
      value: 's3cr=t',
    });
    const byRpc = restrictionsByRpc([r]);
    assert.equal(byRpc.get('ModelStreamInfer'), r);
    assert.equal(byRpc.get('RepositoryModelLoad'), r);
    assert.equal(byRpc.get('ServerLive'), undefined);
  });

  void it('refuses a malformed spec and an unknown protocol', () => {
    assert.throws(() => parseRestriction('inference'), /expected <protocol>/);
    assert.throws(() => parseRestriction('infer:k=v'), /unknown protocol 'infer'/);
  });
});

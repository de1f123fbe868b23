// --grpc-restricted-protocol parsing: Triton's spelling, its protocol groups, and the refusals.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseRestriction,
  parseRestrictions,
  restrictionsByRpc,
} from '../../../src/grpc/restricted-protocol.js';

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

  void it('refuses a protocol named in two restrictions, or twice in one, as Triton does', () => {
    const twice =
      "--grpc-restricted-protocol: restricted protocol 'health' can not be specified in " +
      'multiple config groups';
    assert.throws(() => parseRestrictions(['health,metadata:a=1', 'inference,health:b=2']), {
      message: twice,
    });
    assert.throws(() => parseRestrictions(['health,health:a=1']), { message: twice });
    assert.equal(parseRestrictions(['health:a=1', 'inference:b=2']).length, 2);
  });
});

// Frame-codec cases for server frames: success frames with outputs of every datatype (bytes as
// they are, no per-element work), with none, and error frames, each echoing the request's id.

import assert from 'node:assert/strict';
import type { ResponseOutput } from '../../../src/protocol/inference-request.js';
import { DATATYPES, fid, sampleData, type FrameCase } from './frame-codec-case.js';

export const REPLY_CASES: readonly FrameCase[] = [
  {
    id: 'reply.every-datatype',
    title: 'sends outputs of every datatype with their bytes unchanged',
    run(impl) {
      const outputs: ResponseOutput[] = DATATYPES.map((d) => ({
        name: `out_${d}`,
        datatype: d,
        shape: [1, 2],
        data: sampleData(d),
        binary: false,
      }));
      const reply = impl.readReply(
        impl.codec.encodeResponse(fid('r-1'), { model_name: 'm', model_version: '3', outputs }),
      );
      assert.ok('outputs' in reply);
      assert.equal(reply.id, 'r-1');
      assert.equal(reply.model_name, 'm');
      assert.equal(reply.model_version, '3');
      assert.deepEqual(
        reply.outputs.map((o) => ({ ...o, data: [...o.data] })),
        outputs.map((o) => ({
          name: o.name,
          datatype: o.datatype,
          shape: o.shape,
          data: [...o.data],
        })),
      );
    },
  },
  {
    id: 'reply.no-outputs',
    title: 'sends a success frame without outputs',
    run(impl) {
      const reply = impl.readReply(
        impl.codec.encodeResponse(fid(9), { model_name: 'm', model_version: '1', outputs: [] }),
      );
      assert.deepEqual(reply, {
        id: impl.wireId(9),
        model_name: 'm',
        model_version: '1',
        outputs: [],
      });
    },
  },
  {
    id: 'reply.error',
    title: 'sends error frames with the code and message, echoing integer and string ids',
    run(impl) {
      const error = {
        code: 'BAD_SHAPE',
        message: 'expected [-1,16], got [2] \u2014 caf\u00e9',
      } as const;
      for (const id of [0, 3, 2 ** 53 - 1, 'job']) {
        assert.deepEqual(impl.readReply(impl.codec.encodeError(fid(id), error)), {
          id: impl.wireId(id),
          error,
        });
      }
    },
  },
  {
    id: 'reply.error-retry-after',
    title: "a quota refusal's error frame carries the delay as retry_after_ms",
    run(impl) {
      const error = {
        code: 'TENANT_RATE_LIMITED',
        message: "tenant 't' is over its quota; retry after 2 s",
        retryAfterS: 2,
        retryAfterMs: 1500,
      } as const;
      assert.deepEqual(impl.readReply(impl.codec.encodeError(fid(7), error)), {
        id: impl.wireId(7),
        error: { code: error.code, message: error.message, retry_after_ms: 1500 },
      });
    },
  },
];

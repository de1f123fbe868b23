// Frame-codec cases for request frames that decode: every datatype, every kind of id, versions,
// parameters at each level, the outputs filter, empty tensors, payload ownership, and cancels.

import assert from 'node:assert/strict';
import {
  DATATYPES,
  decodedInfer,
  idValue,
  plain,
  sampleData,
  simpleSpec,
  type FrameCase,
} from './frame-codec-case.js';

export const REQUEST_CASES: readonly FrameCase[] = [
  {
    id: 'infer.every-datatype',
    title: 'carries a tensor of every datatype as its raw bytes',
    run(impl) {
      const inputs = DATATYPES.map((d) => ({
        name: `in_${d}`,
        datatype: d,
        shape: [2],
        data: sampleData(d),
      }));
      const frame = decodedInfer(impl, impl.encodeInfer(simpleSpec({ inputs })));
      assert.deepEqual(
        frame.request.inputs.map((i) => ({
          name: i.name,
          datatype: i.datatype,
          shape: i.shape,
          parameters: plain(i.parameters),
          data: i.data.kind === 'raw' ? [...i.data.bytes] : i.data,
        })),
        inputs.map((i) => ({ ...i, parameters: {}, data: [...i.data] })),
      );
    },
  },
  {
    id: 'infer.fields',
    title: 'carries the model, version, parameters at every level and the outputs filter',
    run(impl) {
      const frame = decodedInfer(
        impl,
        impl.encodeInfer({
          id: 7,
          model: 'a-b_c.d',
          version: '3',
          inputs: [
            {
              name: 'IN',
              datatype: 'INT32',
              shape: [1, 2],
              data: sampleData('INT32'),
              parameters: { note: 'n', triton_ok: true },
            },
          ],
          outputs: [
            { name: 'Y', parameters: { binary_data: true, classification: 2 } },
            { name: 'Z' },
          ],
          parameters: { priority: 2, timeout: 1000, tag: 'x', flag: false, ratio: 0.5 },
        }),
      );
      assert.equal(idValue(frame.id), impl.wireId(7));
      assert.equal(frame.model, 'a-b_c.d');
      assert.equal(frame.version, '3');
      assert.deepEqual(plain(frame.request.parameters), {
        priority: 2,
        timeout: 1000,
        tag: 'x',
        flag: false,
        ratio: 0.5,
      });
      // The triton_ prefix is reserved in request parameters only.
      assert.deepEqual(plain(frame.request.inputs[0]?.parameters ?? {}), {
        note: 'n',
        triton_ok: true,
      });
      assert.deepEqual(
        frame.request.outputs?.map((o) => [o.name, plain(o.parameters)]),
        [
          ['Y', { binary_data: true, classification: 2 }],
          ['Z', {}],
        ],
      );
      assert.equal(frame.request.id, undefined, 'the frame id is not the KServe request id');
    },
  },
  {
    id: 'infer.ids',
    title: 'reads integer ids up to 2^53-1 and string ids up to 256 bytes of UTF-8',
    run(impl) {
      for (const id of [0, 1, 2 ** 53 - 1, 'a', 'x'.repeat(256), '\u00e9'.repeat(128)]) {
        assert.equal(
          idValue(decodedInfer(impl, impl.encodeInfer(simpleSpec({ id }))).id),
          impl.wireId(id),
        );
      }
    },
  },
  {
    id: 'infer.versions',
    title: 'reads a version as digits, and none when absent or empty',
    run(impl) {
      const version = (v: string | number | undefined): string | undefined =>
        decodedInfer(impl, impl.encodeInfer(simpleSpec(v === undefined ? {} : { version: v })))
          .version;
      assert.equal(version(undefined), undefined);
      assert.equal(version(''), undefined);
      assert.equal(version('42'), '42');
      assert.equal(version(42), '42');
      assert.equal(version(0), '0');
    },
  },
  {
    id: 'infer.all-outputs',
    title: 'asks for every output when the filter is absent or empty',
    run(impl) {
      assert.equal(decodedInfer(impl, impl.encodeInfer(simpleSpec())).request.outputs, undefined);
      const empty = decodedInfer(impl, impl.encodeInfer(simpleSpec({ outputs: [] })));
      assert.equal(empty.request.outputs?.length ?? 0, 0);
    },
  },
  {
    id: 'infer.empty-tensors',
    title: 'carries zero-element tensors and a request without inputs',
    run(impl) {
      const spec = simpleSpec({
        inputs: [{ name: 'E', datatype: 'FP32', shape: [0, 3], data: new Uint8Array(0) }],
      });
      const [input] = decodedInfer(impl, impl.encodeInfer(spec)).request.inputs;
      assert.deepEqual(input?.shape, [0, 3]);
      assert.ok(input?.data.kind === 'raw');
      assert.equal(input.data.bytes.byteLength, 0);
      assert.deepEqual(
        decodedInfer(impl, impl.encodeInfer(simpleSpec({ inputs: [] }))).request.inputs,
        [],
      );
    },
  },
  {
    id: 'infer.payload-ownership',
    title: 'copies payloads out of volatile frame memory and views stable frames',
    run(impl) {
      const payload = (volatile: boolean): { frame: Uint8Array; bytes: Uint8Array } => {
        const frame = impl.encodeInfer(simpleSpec());
        const input = decodedInfer(impl, frame, volatile).request.inputs[0];
        assert.ok(input?.data.kind === 'raw');
        return { frame, bytes: input.data.bytes };
      };
      const copied = payload(true);
      const viewed = payload(false);
      copied.frame.fill(0); // what uWS does to the message memory after the callback
      viewed.frame.fill(0);
      assert.deepEqual([...copied.bytes], [...sampleData('INT32')]);
      assert.deepEqual([...viewed.bytes], [0, 0, 0, 0, 0, 0, 0, 0]);
    },
  },
  {
    id: 'cancel',
    title: 'decodes cancel frames with integer and string ids',
    run(impl) {
      for (const id of [5, 'job']) {
        const r = impl.codec.decode(impl.encodeCancel(id), true);
        assert.ok(r.ok && r.frame.kind === 'cancel', 'a cancel frame');
        assert.equal(idValue(r.frame.id), impl.wireId(id));
      }
    },
  },
];

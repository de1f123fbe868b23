// Frame-codec cases for the sequence fields (`sequence_id`, `sequence_start`, `sequence_end`): as
// first-class frame fields and as request parameters they land in the decoded request's
// parameters; ids past 2^53-1, negative ids, wrong types and a key given both ways are refused.

import assert from 'node:assert/strict';
import {
  assertRefused,
  decodedInfer,
  plain,
  simpleSpec,
  type FrameCase,
  type ParamsSpec,
  type SequenceSpec,
} from './frame-codec-case.js';

/** The decoded request parameters of a frame with these sequence fields and parameters. */
function decodedParameters(
  impl: Parameters<FrameCase['run']>[0],
  sequence: SequenceSpec,
  parameters?: ParamsSpec,
): ParamsSpec {
  const spec = simpleSpec({ sequence, ...(parameters !== undefined && { parameters }) });
  return plain(decodedInfer(impl, impl.encodeInfer(spec)).request.parameters);
}

export const SEQUENCE_CASES: readonly FrameCase[] = [
  {
    id: 'sequence.fields',
    title: 'maps the frame fields into the request parameters, beside the other parameters',
    run(impl) {
      assert.deepEqual(
        decodedParameters(impl, { id: 42, start: true, end: false }, { priority: 1 }),
        { priority: 1, sequence_id: 42, sequence_start: true, sequence_end: false },
      );
      assert.deepEqual(decodedParameters(impl, { id: 'user-7', end: true }), {
        sequence_id: 'user-7',
        sequence_end: true,
      });
      assert.deepEqual(decodedParameters(impl, { id: 2 ** 53 - 1 }), {
        sequence_id: 2 ** 53 - 1,
      });
    },
  },
  {
    id: 'sequence.zero-and-false',
    title: 'carries an id of 0, an empty string id and false flags as sent (not as absent)',
    run(impl) {
      assert.deepEqual(decodedParameters(impl, { id: 0, start: false, end: false }), {
        sequence_id: 0,
        sequence_start: false,
        sequence_end: false,
      });
      assert.deepEqual(decodedParameters(impl, { id: '' }), { sequence_id: '' });
    },
  },
  {
    id: 'sequence.as-parameters',
    title: 'accepts the same keys in parameters when the frame fields are absent',
    run(impl) {
      assert.deepEqual(
        decodedParameters(impl, {}, { sequence_id: 5, sequence_start: true, sequence_end: true }),
        { sequence_id: 5, sequence_start: true, sequence_end: true },
      );
    },
  },
  {
    id: 'refuse.sequence-id-huge',
    title: 'refuses a frame sequence_id past 2^53-1, naming the limit',
    run(impl) {
      for (const id of [2 ** 53, 2n ** 64n - 1n]) {
        const r = impl.codec.decode(impl.encodeInfer(simpleSpec({ sequence: { id } })), false);
        assert.equal(r.ok, false, `${id} was accepted`);
        if (r.ok) continue;
        assert.equal(r.error.code, 'BAD_PARAMETER');
        assert.match(
          r.error.message,
          /^frame field 'sequence_id' must be at most 2\^53-1 \(9007199254740991\), the largest integer id carried exactly; use a smaller id or a string id, got the (number|integer) \d+/,
        );
      }
    },
  },
  {
    id: 'refuse.sequence-both-ways',
    title: 'refuses a key set both as a frame field and in parameters, naming both',
    run(impl) {
      for (const [sequence, parameters, key] of [
        [{ id: 3 }, { sequence_id: 3 }, 'sequence_id'],
        [{ start: true }, { sequence_start: false }, 'sequence_start'],
        [{ id: 'a', end: true }, { sequence_end: true }, 'sequence_end'],
      ] as const) {
        assertRefused(
          impl.codec.decode(impl.encodeInfer(simpleSpec({ sequence, parameters })), false),
          impl.wireId(1),
          'BAD_PARAMETER',
          `frame field '${key}' and request parameter '${key}' are both set; send it once, ` +
            'preferably as the frame field',
        );
      }
    },
  },
  {
    id: 'refuse.sequence-parameter-types',
    title: 'refuses a sequence parameter of the wrong type or a negative id',
    run(impl) {
      const refused = (parameters: ParamsSpec, message: string) =>
        assertRefused(
          impl.codec.decode(impl.encodeInfer(simpleSpec({ parameters })), false),
          impl.wireId(1),
          'BAD_PARAMETER',
          message,
        );
      refused(
        { sequence_start: 'yes' },
        "request parameter 'sequence_start' must be a boolean, got a string",
      );
      refused(
        { sequence_end: 1 },
        "request parameter 'sequence_end' must be a boolean, got the number 1",
      );
      refused(
        { sequence_id: -1 },
        "request parameter 'sequence_id' must be an integer >= 0 or a string, got the number -1",
      );
      refused(
        { sequence_id: true },
        "request parameter 'sequence_id' must be an integer >= 0 or a string, got the boolean true",
      );
    },
  },
];

// --rate-limit and --rate-limit-resource as the command line parses them (parseArgs): the default,
// Triton's spellings, and the exact refusal of each bad value (tritonserver's wording).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { helpText, parseArgs, type ServerOptions } from '../../../../src/cli/server-options.js';

const REPO = '--model-repository=/models';
const parse = (...flags: string[]): ServerOptions => parseArgs([REPO, ...flags]).options;
function refuses(flags: readonly string[], message: string): void {
  assert.throws(() => parseArgs([REPO, ...flags]), { message }, flags.join(' '));
}

void describe('rate limiter flags', () => {
  void it('default off with no resources; execution_count in any case, as Triton lowercases it', () => {
    assert.deepEqual(parse().rateLimit, { mode: 'off', resources: [] });
    assert.equal(parse('--rate-limit=execution_count').rateLimit.mode, 'execution_count');
    assert.equal(parse('--rate-limit', 'EXECUTION_COUNT').rateLimit.mode, 'execution_count');
    assert.equal(parse('--rate-limit=off').rateLimit.mode, 'off');
  });

  void it('--rate-limit-resource is repeatable: name:count on every device, name:count:device on one', () => {
    const o = parse(
      '--rate-limit=execution_count',
      '--rate-limit-resource=R1:10',
      '--rate-limit-resource=R2:5:0',
      '--rate-limit-resource',
      'R2:8:1',
    );
    assert.deepEqual(o.rateLimit.resources, [
      { name: 'R1', count: 10 },
      { name: 'R2', count: 5, device: 0 },
      { name: 'R2', count: 8, device: 1 },
    ]);
    assert.ok(Object.isFrozen(o.rateLimit.resources));
  });

  void it('refuses a bad mode or resource naming what was expected and what arrived', () => {
    refuses(
      ['--rate-limit=priority'],
      "invalid argument for --rate-limit: expected off or execution_count, got 'priority'",
    );
    for (const bad of ['R1', 'R1:', ':4', 'R1:x', 'R1:-1', 'R1:2:gpu', 'R1:2:0:1', 'R1:1.5']) {
      refuses(
        [`--rate-limit-resource=${bad}`],
        `--rate-limit-resource option format is '<resource_name>:<count>:<device>' or ` +
          `'<resource_name>:<count>'. Got ${bad}`,
      );
    }
  });

  void it('--help lists both flags', () => {
    assert.match(helpText(), /--rate-limit +off \| execution_count/);
    assert.match(helpText(), /--rate-limit-resource +<name>:<count>\[:<device>\]/);
  });
});

// instance_group { rate_limiter { ... } } through the config pipeline: parsed into the frozen
// config with the proto's defaults (it used to be refused as UNSUPPORTED), printed by /config only
// where config.pbtxt has it, carried to the instances' placements, and refused with a clear message
// when a resource has no name.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toConfigJson } from '../../../../src/config/config-json.js';
import { instancePlacements } from '../../../../src/execution/instance-groups.js';
import { IO, pipeline, rejects } from '../../config/pipeline-helpers.js';

void describe('instance_group rate_limiter config', () => {
  void it('lands in the frozen config with defaults filled in, and in /config', () => {
    const { config, warnings } = pipeline(
      `${IO} instance_group [ { count: 2 kind: KIND_CPU rate_limiter { resources [ ` +
        `{ name: "R1" global: True count: 2 }, { name: "R2" } ] priority: 3 } }, ` +
        `{ kind: KIND_CPU } ]`,
    );
    assert.deepEqual(warnings, []);
    const [limited, plain] = config.instance_group;
    assert.deepEqual(limited?.rate_limiter, {
      resources: [
        { name: 'R1', global: true, count: 2 },
        { name: 'R2', global: false, count: 0 },
      ],
      priority: 3,
    });
    assert.equal(plain?.rate_limiter, undefined);
    const json = toConfigJson(config) as { instance_group: Array<Record<string, unknown>> };
    assert.deepEqual(json.instance_group[0]?.['rate_limiter'], {
      resources: [
        { name: 'R1', global: true, count: 2 },
        { name: 'R2', global: false, count: 0 },
      ],
      priority: 3,
    });
    assert.equal('rate_limiter' in (json.instance_group[1] ?? {}), false);
    const placed = instancePlacements(config);
    assert.equal(placed[0]?.rateLimiter?.priority, 3);
    assert.equal(placed[1]?.rateLimiter, undefined);
  });

  void it('an empty rate_limiter is accepted: no resources, priority 0', () => {
    const { config } = pipeline(`${IO} instance_group { kind: KIND_CPU rate_limiter { } }`);
    assert.deepEqual(config.instance_group[0]?.rate_limiter, { resources: [], priority: 0 });
  });

  void it('a resource with no name is refused, saying which', () => {
    rejects(
      `${IO} instance_group { name: "g" kind: KIND_CPU rate_limiter { resources [ { name: "R" count: 1 }, { count: 1 } ] } }`,
      'CONFIG_INVALID',
      /instance group g of model m: rate_limiter resources\[1\] needs a name, got an empty one/,
    );
  });
});

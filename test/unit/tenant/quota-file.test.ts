import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuotaText } from '../../../src/tenant/quota-file.js';

const refused = (text: string, message: RegExp): void => {
  assert.throws(
    () => parseQuotaText(text, 'q.json'),
    (e: Error) => {
      assert.match(e.message, message);
      return true;
    },
  );
};

void describe('quota file', () => {
  void it("parses the issue's example; a named tenant inherits what it leaves out from default", () => {
    const q = parseQuotaText(
      JSON.stringify({
        default: { rps: 50, burst: 100, in_flight: 16 },
        tenants: {
          'team-a': { rps: 5, burst: 5, in_flight: 4, models: { mlp: { rps: 2 } } },
          b: { share: 3 },
        },
      }),
      'q.json',
    );
    assert.equal(q.unknown, 'default');
    assert.deepEqual(q.default.limits, { rps: 50, burst: 100, inFlight: 16 });
    const a = q.tenants.get('team-a');
    assert.deepEqual(a?.limits, { rps: 5, burst: 5, inFlight: 4 });
    assert.deepEqual(a?.models.get('mlp'), { rps: 2 });
    assert.equal(a?.share, 1);
    assert.deepEqual(q.tenants.get('b')?.limits, { rps: 50, burst: 100, inFlight: 16 });
    assert.equal(q.tenants.get('b')?.share, 3);
    assert.ok(Object.isFrozen(q) && Object.isFrozen(q.default.limits));
  });

  void it("a tenant's own rps without burst does not take the default's burst", () => {
    const q = parseQuotaText(
      '{"default": {"rps": 50, "burst": 100}, "tenants": {"a": {"rps": 2}}}',
      'q',
    );
    assert.deepEqual(q.tenants.get('a')?.limits, { rps: 2 });
  });

  void it('names the line of a syntax error and the JSON path of a bad value', () => {
    refused('{\n  "default": {\n    "rps": 5,\n  }\n}', /^q\.json: invalid JSON at line 4/);
    refused(
      '{"tenants": {"a": {"rps": -1}}}',
      /q\.json: \$\.tenants\["a"\]\.rps: expected a number > 0, got -1/,
    );
    refused(
      '{"tenants": {"a": {"in_flight": 1.5}}}',
      /\$\.tenants\["a"\]\.in_flight: expected an integer >= 1/,
    );
    refused(
      '{"tenants": {"a": {"queue": 2}}}',
      /\$\.tenants\["a"\]\.queue: expected a fraction in \(0, 1\]/,
    );
    refused('{"tenants": {"a": {"rsp": 2}}}', /\$\.tenants\["a"\]\.rsp: unknown field/);
    refused('{"unknown": "drop"}', /\$\.unknown: expected "default" or "refuse"/);
    refused('{"default": {"burst": 3}}', /\$\.default\.burst: burst needs rps/);
    refused('[]', /\$: expected an object/);
  });
});

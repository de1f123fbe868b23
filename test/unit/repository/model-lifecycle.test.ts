// One model's lifecycle on its own: each transition's state, reason and version rows, as the
// repository index shows them, and the transitions the operation chains make impossible refused
// without changing what was recorded.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexRows, ModelLifecycle } from '../../../src/repository/model-lifecycle.js';
import type { ModelVersion } from '../../../src/repository/model-version.js';
import { configFromText, servedVersion, TWICE_CONFIG } from './model-version-fixture.js';

const config = configFromText(TWICE_CONFIG, 'm');
const version = (v: number): ModelVersion => servedVersion(config, v);
const serving = (...vs: ModelVersion[]): Map<number, ModelVersion> =>
  new Map(vs.map((v) => [v.version, v]));

/** Rows as compact strings: `version:STATE:reason` (or `-:STATE:reason` for the model row). */
const rows = (m: ModelLifecycle): string[] =>
  indexRows(m).map((r) => `${r.version ?? '-'}:${r.state ?? ''}:${r.reason ?? ''}`);

/** A lifecycle serving `versions`, loaded the way the load steps load. */
function ready(...versions: ModelVersion[]): ModelLifecycle {
  const m = new ModelLifecycle('m');
  m.startLoading(versions.map((v) => v.version));
  m.serve(config, serving(...versions), []);
  return m;
}

/** What a transition must leave alone when it is refused. */
const snapshot = (m: ModelLifecycle) => ({
  state: m.state,
  reason: m.reason,
  wanted: m.wanted,
  versions: [...m.versions.keys()],
  rows: rows(m),
});

void describe('ModelLifecycle: loads', () => {
  void it('starts LOADING and wanted, with one model row and nothing serving', () => {
    const m = new ModelLifecycle('m');
    assert.equal(m.state, 'LOADING');
    assert.equal(m.reason, '');
    assert.equal(m.wanted, true);
    assert.equal(m.versions.size, 0);
    assert.deepEqual(rows(m), ['-:LOADING:']);
  });

  void it('shows loading versions, then serves them READY under the load config', () => {
    const m = new ModelLifecycle('m');
    m.startLoading([1, 2]);
    assert.deepEqual(rows(m), ['1:LOADING:', '2:LOADING:']);
    const [v1, v2] = [version(1), version(2)];
    m.serve(config, serving(v1, v2), []);
    assert.equal(m.state, 'READY');
    assert.equal(m.config, config);
    assert.equal(m.versions.get(2), v2);
    assert.equal(m.statuses.size, 0);
    assert.deepEqual(rows(m), ['1:READY:', '2:READY:']);
  });

  void it('records a failed first load as UNAVAILABLE with the reason, on the model and versions', () => {
    const m = new ModelLifecycle('m');
    m.startLoading([1]);
    m.loadFailed([1], 'model.onnx: protobuf parsing failed');
    assert.equal(m.failed('model.onnx: protobuf parsing failed'), false);
    assert.equal(m.state, 'UNAVAILABLE');
    assert.equal(m.reason, 'model.onnx: protobuf parsing failed');
    assert.equal(m.wanted, true, 'a failed load still counts for strict readiness');
    assert.deepEqual(rows(m), ['1:UNAVAILABLE:model.onnx: protobuf parsing failed']);
  });

  void it('records a failure before any version started on the model row alone', () => {
    const m = new ModelLifecycle('m');
    m.configured(config);
    assert.equal(m.failed("config.pbtxt:1:1: unexpected '}'"), false);
    assert.deepEqual(rows(m), ["-:UNAVAILABLE:config.pbtxt:1:1: unexpected '}'"]);
    assert.equal(m.config, config, 'the config of the attempt stands for the model');
  });

  void it('keeps a READY model READY when a reload fails, its serving rows carrying the reason', () => {
    const v1 = version(1);
    const m = ready(v1);
    m.startLoading([1]);
    assert.deepEqual(rows(m), ['1:READY:'], 'a serving version shows READY while it reloads');
    m.loadFailed([1], 'worker exited');
    assert.equal(m.failed('worker exited'), true);
    assert.equal(m.state, 'READY');
    assert.equal(m.versions.get(1), v1);
    assert.deepEqual(rows(m), ['1:READY:worker exited']);
  });

  void it('supersedes earlier failures on success, but keeps the rows of unloaded versions', () => {
    const m = ready(version(1));
    // Version 1 is replaced by version 2 and retired: its row says `unloaded`.
    const v2 = version(2);
    m.startLoading([2]);
    m.serve(config, serving(v2), [...m.versions.values()]);
    m.retired([1]);
    // Version 3 fails to load while version 2 serves.
    m.startLoading([3]);
    m.loadFailed([3], 'bad file');
    m.failed('bad file');
    assert.deepEqual(rows(m), [
      '1:UNAVAILABLE:unloaded',
      '2:READY:bad file',
      '3:UNAVAILABLE:bad file',
    ]);
    // A load with nothing to change succeeds as it stands.
    m.unchanged();
    assert.equal(m.reason, '');
    assert.deepEqual(rows(m), ['1:UNAVAILABLE:unloaded', '2:READY:']);
  });

  void it('gives every unavailable row the reason of a failure when nothing serves', () => {
    const m = ready(version(1));
    m.beginUnload();
    m.unloaded([1]);
    m.want();
    m.failed('config.pbtxt is gone');
    assert.deepEqual(rows(m), ['1:UNAVAILABLE:config.pbtxt is gone']);
    assert.equal(m.wanted, true);
  });
});

void describe('ModelLifecycle: replacement and unload', () => {
  void it('switches to the new versions in one step; the replaced ones are UNLOADING until retired', () => {
    const [old1, old2] = [version(1), version(2)];
    const m = ready(old1, old2);
    const [new2, new3] = [version(2), version(3)];
    m.startLoading([2, 3]);
    // Until the switch the old versions serve.
    assert.equal(m.versions.get(2), old2);
    assert.deepEqual(rows(m), ['1:READY:', '2:READY:', '3:LOADING:']);
    m.serve(config, serving(new2, new3), [old1, old2]);
    assert.equal(m.versions.get(2), new2);
    assert.equal(m.versions.has(1), false);
    // Version 2 serves again (new object), so only version 1 is UNLOADING.
    assert.deepEqual(rows(m), ['1:UNLOADING:', '2:READY:', '3:READY:']);
    assert.deepEqual(m.retired([1, 2]), [1], 'only versions that do not serve again are gone');
    assert.deepEqual(rows(m), ['1:UNAVAILABLE:unloaded', '2:READY:', '3:READY:']);
  });

  void it('unloads: nothing serves at once, UNLOADING while draining, then UNAVAILABLE unloaded', () => {
    const [v1, v2] = [version(1), version(2)];
    const m = ready(v1, v2);
    const old = m.beginUnload();
    assert.deepEqual(old, [v1, v2]);
    assert.equal(m.versions.size, 0);
    assert.equal(m.state, 'UNLOADING');
    assert.equal(m.wanted, false);
    assert.deepEqual(rows(m), ['1:UNLOADING:', '2:UNLOADING:']);
    m.unloaded([1, 2]);
    assert.equal(m.state, 'UNAVAILABLE');
    assert.equal(m.reason, 'unloaded');
    assert.deepEqual(rows(m), ['1:UNAVAILABLE:unloaded', '2:UNAVAILABLE:unloaded']);
  });

  void it('unloads a model that serves nothing at once, except one whose first load has not ended', () => {
    const failed = new ModelLifecycle('m');
    failed.failed('broken');
    assert.deepEqual(failed.beginUnload(), []);
    assert.deepEqual(rows(failed), ['-:UNAVAILABLE:unloaded']);
    assert.equal(failed.wanted, false);

    const loading = new ModelLifecycle('m');
    assert.deepEqual(loading.beginUnload(), []);
    assert.equal(loading.state, 'LOADING');
    assert.equal(loading.wanted, false);
  });

  void it('loads again after an unload', () => {
    const m = ready(version(1));
    m.beginUnload();
    m.unloaded([1]);
    const v1 = version(1);
    m.startLoading([1]);
    assert.equal(m.wanted, true);
    m.serve(config, serving(v1), []);
    assert.equal(m.state, 'READY');
    assert.deepEqual(rows(m), ['1:READY:']);
  });
});

void describe('ModelLifecycle: illegal transitions', () => {
  const cases: Array<[string, () => ModelLifecycle, (m: ModelLifecycle) => void, RegExp]> = [
    [
      'a second load of a version still loading',
      () => {
        const m = new ModelLifecycle('m');
        m.startLoading([1]);
        return m;
      },
      (m) => m.startLoading([1]),
      /startLoading on version 1, which is LOADING/,
    ],
    [
      'a load of a version still draining',
      () => {
        const m = ready(version(1));
        m.startLoading([2]);
        m.serve(config, serving(version(2)), [...m.versions.values()]);
        return m;
      },
      (m) => m.startLoading([1]),
      /startLoading on version 1, which is UNLOADING/,
    ],
    [
      'a load while the model unloads',
      () => {
        const m = ready(version(1));
        m.beginUnload();
        return m;
      },
      (m) => m.startLoading([1]),
      /startLoading on an UNLOADING model/,
    ],
    [
      'serving a version that was not loading',
      () => new ModelLifecycle('m'),
      (m) => m.serve(config, serving(version(1)), []),
      /serve on version 1, which is no row/,
    ],
    [
      'serving while the model unloads',
      () => {
        const m = ready(version(1));
        m.beginUnload();
        return m;
      },
      (m) => m.serve(config, new Map(), []),
      /serve on an UNLOADING model/,
    ],
    [
      'a failure recorded while the model unloads',
      () => {
        const m = ready(version(1));
        m.beginUnload();
        return m;
      },
      (m) => m.failed('late'),
      /failed on an UNLOADING model/,
    ],
    [
      'a second unload before the first ended',
      () => {
        const m = ready(version(1));
        m.beginUnload();
        return m;
      },
      (m) => m.beginUnload(),
      /beginUnload on an UNLOADING model/,
    ],
    [
      'an unload ending that never began',
      () => ready(version(1)),
      (m) => m.unloaded([1]),
      /unloaded on a READY model/,
    ],
    [
      'retiring a version that was not replaced',
      () => ready(version(1)),
      (m) => m.retired([2]),
      /retired on version 2, which is no row/,
    ],
    [
      'a failed start of a version that was not loading',
      () => ready(version(1)),
      (m) => m.loadFailed([1], 'x'),
      /loadFailed on version 1, which is no row/,
    ],
    [
      'an unchanged load of a model that is not READY',
      () => new ModelLifecycle('m'),
      (m) => m.unchanged(),
      /unchanged on a model that is not READY/,
    ],
  ];
  for (const [what, setup, transition, message] of cases) {
    void it(`refuses ${what}, recording nothing`, () => {
      const m = setup();
      const before = snapshot(m);
      assert.throws(() => transition(m), message);
      assert.deepEqual(snapshot(m), before);
    });
  }
});

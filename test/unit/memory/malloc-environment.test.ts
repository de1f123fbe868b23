// Every way infernode is started for real sets glibc's malloc as src/memory/malloc-environment.ts
// says: `npm start`, the systemd unit, the container image and the Kubernetes manifests.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import yaml from 'js-yaml';
import { DEPLOYED_MALLOC_ENV } from '../../../src/memory/malloc-environment.js';
import { REPO_ROOT } from '../../helpers/paths.js';

const read = (...parts: string[]): string => readFileSync(path.join(REPO_ROOT, ...parts), 'utf8');
const pairs = Object.entries(DEPLOYED_MALLOC_ENV);

interface Container {
  readonly env?: readonly { name: string; value?: string }[];
}

function containerEnv(
  file: string,
  containers: (doc: Record<string, unknown>) => Container[],
): void {
  const doc = yaml.load(read('deploy', 'kubernetes', ...file.split('/'))) as Record<
    string,
    unknown
  >;
  for (const c of containers(doc)) {
    for (const [name, value] of pairs) {
      assert.deepEqual(
        c.env?.find((e) => e.name === name),
        { name, value },
        `${file}: ${name}`,
      );
    }
  }
}

void describe('glibc malloc environment', () => {
  void it('names only glibc malloc variables, with numeric values', () => {
    assert.ok(pairs.length > 0);
    for (const [name, value] of pairs) {
      assert.match(name, /^MALLOC_[A-Z_]+_$/);
      assert.match(value, /^\d+$/);
    }
  });

  void it('is set by npm start', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    for (const [name, value] of pairs)
      assert.ok(pkg.scripts['start']?.includes(`${name}=${value} node `));
  });

  void it('is set by the systemd unit and the container image', () => {
    const unit = read('deploy', 'systemd', 'infernode.service');
    const image = read('Dockerfile');
    for (const [name, value] of pairs) {
      assert.match(unit, new RegExp(`^Environment=${name}=${value}$`, 'm'));
      assert.match(image, new RegExp(`^ENV ${name}=${value}$`, 'm'));
    }
  });

  void it('is set on the containers of the Deployment and the KServe runtime', () => {
    containerEnv('base/deployment.yaml', (d) => {
      const spec = d['spec'] as { template: { spec: { containers: Container[] } } };
      return spec.template.spec.containers;
    });
    containerEnv('kserve/cluster-serving-runtime.yaml', (d) => {
      const spec = d['spec'] as { containers: Container[] };
      return spec.containers;
    });
  });
});

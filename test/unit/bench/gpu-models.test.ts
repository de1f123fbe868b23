// The GPU models a result records, read from the NVIDIA driver's /proc listing (here a fake one).

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { nvidiaGpuModels } from '../../../bench/measure/gpu-models.js';

void describe('nvidiaGpuModels', () => {
  void it("lists each GPU's Model line in bus order, and nothing without the driver", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'infernode-gpus-'));
    try {
      for (const [bus, model] of [
        ['0000:1b:00.0', 'NVIDIA H200'],
        ['0000:0a:00.0', 'NVIDIA H100 80GB HBM3'],
      ] as const) {
        mkdirSync(path.join(root, bus));
        writeFileSync(
          path.join(root, bus, 'information'),
          `Model: \t\t ${model}\nIRQ:   \t\t 42\nGPU UUID: \t GPU-0\n`,
        );
      }
      mkdirSync(path.join(root, '0000:2c:00.0'));
      assert.deepEqual(nvidiaGpuModels(root), [
        'NVIDIA H100 80GB HBM3',
        'NVIDIA H200',
        'GPU 0000:2c:00.0',
      ]);
      assert.deepEqual(nvidiaGpuModels(path.join(root, 'absent')), []);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

// The nvidia-smi query and its CSV lines (src/metrics/gpu-sample.ts): the exact command line, each
// column in Triton's units, the placeholders nvidia-smi prints for what a GPU cannot report, lines
// that are not samples, and nv_energy_consumption from the driver's counter or from power.draw.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EnergyTotal,
  nvidiaSmiArgs,
  parseGpuLine,
  rejectsEnergyField,
} from '../../../src/metrics/gpu-sample.js';

const UUID = 'GPU-5ab1c3d2-9f7e-4e1a-8c3b-0d2e4f6a8b1c';
const MIB = 1024 * 1024;

void describe('nvidiaSmiArgs', () => {
  void it('asks every field once, as CSV without header or units, in a -lms loop', () => {
    assert.deepEqual(nvidiaSmiArgs(2000), [
      '--query-gpu=uuid,utilization.gpu,memory.total,memory.used,power.draw,power.limit,total_energy_consumption',
      '--format=csv,noheader,nounits',
      '-lms',
      '2000',
    ]);
  });

  void it('leaves out total_energy_consumption, and only it, for drivers that refuse it', () => {
    assert.deepEqual(nvidiaSmiArgs(250, false), [
      '--query-gpu=uuid,utilization.gpu,memory.total,memory.used,power.draw,power.limit',
      '--format=csv,noheader,nounits',
      '-lms',
      '250',
    ]);
  });
});

void describe('parseGpuLine', () => {
  void it("converts each column to Triton's units: fraction, bytes, watts, joules", () => {
    assert.deepEqual(parseGpuLine(`${UUID}, 37, 81559, 1024, 312.45, 700.00, 123456789`), {
      uuid: UUID,
      utilization: 0.37,
      memoryTotalBytes: 81559 * MIB,
      memoryUsedBytes: 1024 * MIB,
      powerWatts: 312.45,
      powerLimitWatts: 700,
      driverEnergyJoules: 123456.789,
    });
  });

  void it('leaves out a column the GPU cannot report, whatever nvidia-smi prints for it', () => {
    for (const missing of [
      '[N/A]',
      '[Not Supported]',
      '[Unknown Error]',
      '[Insufficient Permissions]',
      '',
      'N/A',
    ]) {
      const s = parseGpuLine(`${UUID}, 5, 16384, 10, ${missing}, ${missing}, ${missing}`);
      assert.deepEqual(
        s,
        { uuid: UUID, utilization: 0.05, memoryTotalBytes: 16384 * MIB, memoryUsedBytes: 10 * MIB },
        `'${missing}'`,
      );
    }
  });

  void it('reads the query without the energy field by its six columns', () => {
    assert.deepEqual(parseGpuLine(`${UUID}, 100, 8, 8, 70.5, 75`, false), {
      uuid: UUID,
      utilization: 1,
      memoryTotalBytes: 8 * MIB,
      memoryUsedBytes: 8 * MIB,
      powerWatts: 70.5,
      powerLimitWatts: 75,
    });
    // A seven-column line is not a sample of the six-column query, and the reverse.
    assert.equal(parseGpuLine(`${UUID}, 1, 2, 3, 4, 5, 6`, false), undefined);
    assert.equal(parseGpuLine(`${UUID}, 1, 2, 3, 4, 5`), undefined);
  });

  void it('takes MIG device uuids', () => {
    const mig = 'MIG-2d8a6b36-3c1f-5c8e-9a57-6f1d0c2b4e88';
    assert.equal(parseGpuLine(`${mig}, 0, 1, 1, [N/A], [N/A], [N/A]`)?.uuid, mig);
  });

  void it('refuses lines that are not samples: errors, headers, blanks, negative figures', () => {
    for (const line of [
      '',
      'Field "total_energy_consumption" is not a valid field to query.',
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
      'No devices were found',
      'uuid, utilization.gpu [%], memory.total [MiB], memory.used [MiB], power.draw [W], power.limit [W], total_energy_consumption [mJ]',
      `not-a-uuid, 1, 2, 3, 4, 5, 6`,
    ]) {
      assert.equal(parseGpuLine(line), undefined, line);
    }
    assert.equal(parseGpuLine(`${UUID}, -1, 2, 3, 4, 5, 6`)?.utilization, undefined);
  });
});

void describe('rejectsEnergyField', () => {
  void it("recognises nvidia-smi's refusal of total_energy_consumption only", () => {
    assert.equal(
      rejectsEnergyField(
        'Field "total_energy_consumption" is not a valid field to query.\n\nTry \'nvidia-smi --help-query-gpu\'',
      ),
      true,
    );
    assert.equal(rejectsEnergyField('Field "power.draw" is not a valid field to query.'), false);
    assert.equal(rejectsEnergyField('No devices were found'), false);
  });
});

void describe('EnergyTotal', () => {
  const sample = (over: { driverEnergyJoules?: number; powerWatts?: number }) => ({
    uuid: UUID,
    ...over,
  });

  void it('counts the driver counter from its first reading, not from the driver load', () => {
    const e = new EnergyTotal();
    assert.equal(e.joules, undefined);
    e.add(sample({ driverEnergyJoules: 5000, powerWatts: 100 }), 0);
    assert.equal(e.joules, 0);
    e.add(sample({ driverEnergyJoules: 5250.5, powerWatts: 100 }), 1000);
    assert.equal(e.joules, 250.5);
    // [N/A] for a moment: the total stays.
    e.add(sample({ powerWatts: 100 }), 2000);
    assert.equal(e.joules, 250.5);
  });

  void it('never goes back when the driver counter restarts (a driver reload)', () => {
    const e = new EnergyTotal();
    e.add(sample({ driverEnergyJoules: 5000 }), 0);
    e.add(sample({ driverEnergyJoules: 5100 }), 1000);
    e.add(sample({ driverEnergyJoules: 20 }), 2000);
    assert.equal(e.joules, 100);
    e.add(sample({ driverEnergyJoules: 50 }), 3000);
    assert.equal(e.joules, 130);
  });

  void it('without the counter, integrates power.draw over the time between samples', () => {
    const e = new EnergyTotal();
    e.add(sample({}), 0);
    assert.equal(e.joules, undefined, 'no power yet: no figure');
    e.add(sample({ powerWatts: 200 }), 1000);
    assert.equal(e.joules, 0);
    e.add(sample({ powerWatts: 300 }), 1500); // 200 W for 0.5 s
    assert.equal(e.joules, 100);
    e.add(sample({}), 2500); // 300 W for 1 s, then power unknown
    assert.equal(e.joules, 400);
    e.add(sample({ powerWatts: 100 }), 4000); // the unknown gap counts nothing
    assert.equal(e.joules, 400);
    e.add(sample({ powerWatts: 100 }), 6000);
    assert.equal(e.joules, 600);
  });
});

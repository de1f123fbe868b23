// The facts every rendering states about a run: what was measured, on what, and how.

import type { MachineInfo } from '../measure/machine-info.js';
import { formatLoadRange } from '../options/load-range.js';
import { bytes } from './format.js';
import type { BenchResult } from './result-types.js';

export function machineLine(r: BenchResult): string {
  return machineLineOf(r.machine);
}

export function commitLine(r: BenchResult): string {
  return commitLineOf(r.machine);
}

export function machineLineOf(m: MachineInfo): string {
  const gib = (m.memoryBytes / 1024 ** 3).toFixed(1);
  return `${m.cpus} × ${m.cpuModel}, ${gib} GiB, ${m.os} ${m.arch}; Node ${m.node}, onnxruntime-node ${m.onnxruntimeNode}`;
}

export function commitLineOf(m: MachineInfo): string {
  return `infernode ${m.infernode} at ${m.commit.slice(0, 12)}${m.dirty ? ' (with uncommitted changes)' : ''}`;
}

export function workloadLine(r: BenchResult): string {
  const o = r.options;
  const model = r.model;
  const inputs = model.inputs
    .map((i) => `${i.name} ${i.datatype} [${i.shape.join(',')}]`)
    .join(', ');
  const sweep =
    o.sweep.kind === 'concurrency'
      ? `concurrency ${formatLoadRange(o.sweep.range)}`
      : `request rate ${formatLoadRange(o.sweep.range)}/s (${o.sweep.distribution} arrivals)`;
  const body =
    model.requestBytes.length === 1
      ? bytes(model.requestBytes[0] ?? 0)
      : `${model.requestBytes.length} payloads`;
  const data = o.inputData.kind === 'file' ? 'file data' : `${o.inputData.kind} data`;
  return (
    `model \`${model.name}\` (${inputs}; ${data}, ${body} per request), ${sweep}, ` +
    `${o.measurementIntervalMs} ms windows, stable = last 3 windows within ${o.stabilityPercentage}% ` +
    `(${o.percentile > 0 ? `p${o.percentile}` : 'average'} latency), at most ${o.maxTrials} windows per level`
  );
}

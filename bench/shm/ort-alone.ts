// The floor under the shared-memory comparison: ONNX Runtime alone, no server. A child process
// (so its RSS is its own) creates one session for the model and runs it once on a small input (the
// last dimension cut to 1024 at most), as a server is loaded and idle before its first request;
// it then takes its idle RSS, allocates the input the server rows carry (a server must hold the
// input once too: read from the region, or decoded from the body) and runs N times, and reports
// its peak above idle over the first run (VmHWM, reset at the idle sample through
// /proc/self/clear_refs). What a
// server adds to a request's memory is what its row grows beyond this one.
//
//   node dist/bench/shm/ort-alone.js <model.onnx> <input name> <dims comma-separated> <N>
// prints one JSON line: { idleBytes, peakBytes, latenciesMs }.

import { readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { InferenceSession, Tensor } from 'onnxruntime-node';

function status(field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

const [file, input, dims, count] = process.argv.slice(2);
if (file === undefined || input === undefined || dims === undefined || count === undefined) {
  throw new Error('usage: ort-alone.js <model.onnx> <input name> <dims> <N>');
}
const shape = dims.split(',').map(Number);
const n = Number(count);
const tensorOf = (dims: readonly number[]): Tensor => {
  const data = Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => i % 1000);
  return new Tensor('float32', data, dims);
};
const session = await InferenceSession.create(file);
// Loaded and warm, as the server is before its first request.
await session.run({
  [input]: tensorOf(shape.map((d, i) => (i === shape.length - 1 ? Math.min(d, 1024) : d))),
});
await sleep(1000);
const idleBytes = status('VmRSS');
writeFileSync('/proc/self/clear_refs', '5'); // VmHWM := VmRSS
const feeds = { [input]: tensorOf(shape) };
// The peak is taken over the first run alone: what one request needs, the least any server can
// hold for it (a server's row is its peak over all N, so the comparison leans towards the floor).
const latenciesMs: number[] = [];
let peakBytes = 0;
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  await session.run(feeds);
  latenciesMs.push(performance.now() - t0);
  if (i === 0) peakBytes = Math.max(status('VmHWM'), status('VmRSS'));
}
process.stdout.write(`${JSON.stringify({ idleBytes, peakBytes, latenciesMs })}\n`);

// The streams bench's load process (forked by sequence-streams.ts): takes one order over IPC,
// runs it, answers with one report and exits. Keeping the load generator (or the naive loop) in
// its own process keeps its event loop apart from the server's; they still share the machine's
// cores, which the report states.

import { modelCompute } from './model-compute.js';
import { naiveSteps } from './naive-steps.js';
import { readTape } from './speech-tape.js';
import type { LoadOrder, LoadReport, ProbeOrder, ProbeReport } from './stream-messages.js';
import { runPaced, summarize } from './stream-pacer.js';
import { wsSteps } from './ws-steps.js';

async function probe(order: ProbeOrder): Promise<ProbeReport> {
  const tape = readTape();
  const target = order.target;
  const ws =
    target.kind === 'ws'
      ? await wsSteps(target.host, target.port, target.model, order.connections)
      : null;
  const step = ws !== null ? ws.step : await naiveSteps(order.streams);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const w = await runPaced(tape, order, step);
    const cpu = process.cpuUsage(cpu0);
    return {
      type: 'probe',
      latency: summarize(w.latenciesMs),
      stepsPerSecond: w.stepsPerSecond,
      errors: w.errors,
      firstError: w.firstError,
      loadCpuCores: (cpu.user + cpu.system) / 1000 / (performance.now() - t0),
    };
  } finally {
    ws?.close();
  }
}

async function handle(order: LoadOrder): Promise<LoadReport> {
  try {
    if (order.type === 'compute') return { type: 'compute', rows: await modelCompute(order) };
    return await probe(order);
  } catch (e) {
    return { type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

process.once('message', (order: LoadOrder) => {
  void handle(order).then((report) => {
    process.send?.(report, () => process.exit(0));
  });
});

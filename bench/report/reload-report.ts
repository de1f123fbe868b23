// What the reload-under-load bench publishes from bench/results/reload-under-load.json: a CSV of
// its phases, a CSV of its reloads, and its section of bench/RESULTS.md.

import type { PhaseId, ReloadResult } from '../model-management/reload-result.js';
import { cores, ms, ratio } from './format.js';
import { median } from '../measure/median.js';
import { commitLineOf, machineLineOf } from './run-summary.js';
import { alignColumns, markdownTable } from './tables.js';

const PHASE_LABELS: Readonly<Record<PhaseId, string>> = {
  steady: 'steady state',
  reloads: 'during the reloads',
  'steady-after': 'steady state after',
};

export function phasesCsv(result: ReloadResult): string {
  const rows = [
    'phase,duration_s,requests,failures,req_per_s,p50_us,p90_us,p99_us,p999_us,max_us,server_cores,machine_cores',
  ];
  for (const p of result.phases) {
    const l = p.latency;
    rows.push(
      [
        p.id,
        (p.durationMs / 1000).toFixed(3),
        p.requests,
        p.failures,
        p.reqPerSec.toFixed(1),
        l.p50Us,
        l.p90Us,
        l.p99Us,
        l.p999Us,
        l.maxUs,
        p.serverCores?.toFixed(2) ?? '',
        p.machineCores?.toFixed(2) ?? '',
      ].join(','),
    );
  }
  return `${rows.join('\n')}\n`;
}

export function reloadsCsv(result: ReloadResult): string {
  const rows = ['reload,instances,new_version,duration_ms'];
  for (const r of result.reloads) {
    rows.push([r.reload, r.instances, r.newVersion, r.durationMs.toFixed(1)].join(','));
  }
  return `${rows.join('\n')}\n`;
}

/** The bench/RESULTS.md section. */
export function reloadSection(result: ReloadResult, source: string): string[] {
  const out: string[] = [];
  const n = result.reloads.length;
  out.push(`## Reloading \`${result.model}\` under load`, '');
  out.push(
    `Produced by \`${result.command}\` (${result.startedAt.slice(0, 10)}); rendered from \`${source}\`.`,
    '',
  );
  const newVersion = result.reloads.find((r) => r.newVersion);
  out.push(
    `- **Machine:** ${machineLineOf(result.machine)}`,
    `- **Code:** ${commitLineOf(result.machine)}`,
    `- **Workload:** a spawned \`infernode ${result.serverArgs.join(' ')}\` on a temporary copy of ` +
      `\`${result.model}\`; ${result.clients} closed-loop clients, one keep-alive HTTP connection each, ` +
      'send one-row KServe v2 JSON requests. After a steady window, the model is reloaded ' +
      `${n} times back to back (RepositoryModelLoad over gRPC): each reload rewrites config.pbtxt ` +
      'alternating `instance_group` count 1 and 2' +
      (newVersion === undefined
        ? ''
        : `, and reload ${newVersion.reload} also adds version 2 (other weights), which the default policy (latest 1) switches every request to`) +
      '. Then a second steady window.',
    '',
  );
  const steady = result.phases.find((p) => p.id === 'steady');
  out.push(
    markdownTable({
      headers: [
        'phase',
        'seconds',
        'requests',
        'failures',
        'req/s',
        'p50 ms',
        'p99 ms',
        'p99.9 ms',
        'max ms',
        'p99 vs steady',
        'server cores',
        'machine cores',
      ],
      rows: result.phases.map((p) => [
        PHASE_LABELS[p.id],
        (p.durationMs / 1000).toFixed(1),
        p.requests.toLocaleString('en-US'),
        String(p.failures),
        Math.round(p.reqPerSec).toLocaleString('en-US'),
        ms(p.latency.p50Us),
        ms(p.latency.p99Us),
        ms(p.latency.p999Us),
        ms(p.latency.maxUs),
        p.id === 'steady' ? '1×' : ratio(p.latency.p99Us, steady?.latency.p99Us),
        cores(p.serverCores),
        cores(p.machineCores),
      ]),
      align: alignColumns(12),
    }),
    '',
  );
  const failures = result.phases.reduce((s, p) => s + p.failures, 0);
  const samples = result.phases.flatMap((p) => (p.errorSample === null ? [] : [p.errorSample]));
  out.push(
    `Failures over all phases: **${failures}**${samples.length > 0 ? ` (first: ${samples[0]})` : ''}. ` +
      `The server logged ${result.switches} switches to new versions for ${n} reloads; the index at the end: ` +
      `${result.finalIndex.map((r) => `\`${r.name}\` ${r.version} ${r.state}${r.reason === '' ? '' : ` (${r.reason})`}`).join(', ')}.`,
    '',
  );
  const durations = result.reloads.map((r) => r.durationMs).sort((a, b) => a - b);
  out.push(
    `Reload durations (the load call, until the new versions serve): median ${median(durations, 0).toFixed(0)} ms, ` +
      `min ${(durations[0] ?? 0).toFixed(0)} ms, max ${(durations[durations.length - 1] ?? 0).toFixed(0)} ms.`,
    '',
  );
  out.push(
    markdownTable({
      headers: ['reload', ...result.reloads.map((r) => String(r.reload))],
      rows: [
        ['instances', ...result.reloads.map((r) => `${r.instances}${r.newVersion ? ' + v2' : ''}`)],
        ['ms', ...result.reloads.map((r) => r.durationMs.toFixed(0))],
      ],
      align: ['left', ...result.reloads.map(() => 'right' as const)],
    }),
    '',
  );
  out.push(
    'Latency is measured by the client from the send of a request to the last byte of its answer ' +
      '(HDR histogram, 3 significant digits). The clients run in the bench process, on the same ' +
      "two cores as the server; building a new version's sessions takes CPU from serving, which is " +
      'part of what the reload phase measures.',
    '',
  );
  return out;
}

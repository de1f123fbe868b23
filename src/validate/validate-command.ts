// `infernode validate`: the release gate for a new export of a model. Resolves the two model files
// and the config (resolve-pair.ts), opens both in ONNX Runtime here (no server), checks that the
// candidate fits before anything runs (signature-fit.ts), replays the samples through both
// (samples.ts, agreement.ts), times them (latency.ts), holds the results against the thresholds
// (checks.ts) and writes the reports (report.ts). Exit status: 0 pass, 1 fail, 2 usage error.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelConfig } from '../config/model-config.js';
import { fromConfigType } from '../tensor/datatypes.js';
import { VERSION } from '../version.js';
import { AgreementAccumulator } from '../compare/agreement.js';
import { agreementChecks, latencyChecks, type Check } from './checks.js';
import { batchSizesFor, measureLatency, type BatchLatency } from './latency.js';
import { openModelSession, SESSION_OPTIONS, type ModelSession } from './model-session.js';
import { REPORT_FORMAT, reportJson, reportMarkdown, type ValidationReport } from './report.js';
import { resolvePair } from './resolve-pair.js';
import { chooseSamples, type SampleSet } from './samples.js';
import { checkSignatureFit } from './signature-fit.js';
import { UsageError, usage } from './usage-error.js';
import { parseValidateArgs, VALIDATE_HELP, type ValidateArgs } from './validate-args.js';
import type { OutputAgreement } from '../compare/agreement.js';

export interface CommandOutput {
  write(text: string): void;
  error(text: string): void;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export async function runValidate(argv: readonly string[], out: CommandOutput): Promise<number> {
  let args: ValidateArgs;
  try {
    args = await parseValidateArgs(argv);
    if (args.help) {
      out.write(VALIDATE_HELP);
      return 0;
    }
    const report = await validate(args);
    await writeReports(args, report, out);
    return report.verdict === 'pass' ? 0 : 1;
  } catch (e) {
    if (e instanceof UsageError) {
      out.error(`infernode validate: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

async function writeReports(
  args: ValidateArgs,
  report: ValidationReport,
  out: CommandOutput,
): Promise<void> {
  const markdown = reportMarkdown(report);
  const write = async (file: string, text: string): Promise<void> => {
    try {
      await mkdir(path.dirname(path.resolve(file)), { recursive: true });
      await writeFile(file, text);
    } catch (e) {
      throw usage(
        `cannot write the report ${file}: ${(e as NodeJS.ErrnoException).code ?? message(e)}`,
      );
    }
  };
  if (args.reportFile !== undefined) await write(args.reportFile, markdown);
  if (args.jsonFile !== undefined) await write(args.jsonFile, reportJson(report));
  if (args.reportFile === undefined) out.write(markdown);
  const failed = report.checks.filter((c) => !c.pass);
  out.error(
    `infernode validate: ${report.model}: ${report.verdict.toUpperCase()}` +
      (failed.length === 0
        ? ` (${report.checks.length} checks)`
        : `: ${failed.map((c) => `${c.check} ${c.subject}`).join('; ')}`) +
      '\n',
  );
}

async function validate(args: ValidateArgs): Promise<ValidationReport> {
  const pair = await resolvePair(args);
  const { config } = pair;
  if (config.sequence_batching !== undefined) {
    throw usage(
      `model "${args.model}" has sequence_batching; validate compares stateless models only`,
    );
  }
  let serving: ModelSession;
  try {
    serving = await openModelSession(pair.serving.file);
  } catch (e) {
    throw usage(`the serving version ${pair.serving.version} cannot be opened: ${message(e)}`);
  }
  const base = {
    format: REPORT_FORMAT,
    infernodeVersion: VERSION,
    model: args.model,
    modelRepository: args.modelRepository,
    serving: pair.serving,
    candidate: { version: pair.candidate.version ?? null, file: pair.candidate.file },
    session: `ONNX Runtime CPU provider, ${SESSION_OPTIONS.intraOpNumThreads} intra-op thread, graph optimization "${SESSION_OPTIONS.graphOptimizationLevel}", the same for both`,
    thresholds: args.thresholds,
  } as const;
  const stop = (
    stoppedAt: 'signature' | 'load' | 'run',
    signature: ValidationReport['signature'],
    check: Check,
    extra: Partial<ValidationReport> = {},
  ): ValidationReport => ({
    ...base,
    verdict: 'fail',
    stoppedAt,
    signature,
    agreement: [],
    latency: [],
    checks: [check],
    ...extra,
  });
  try {
    let candidate: ModelSession;
    try {
      candidate = await openModelSession(pair.candidate.file);
    } catch (e) {
      return stop(
        'load',
        { problems: [], notes: [] },
        {
          check: 'load',
          subject: 'candidate',
          measured: 'ONNX Runtime refused it',
          limit: 'loads',
          pass: false,
        },
        { error: message(e) },
      );
    }
    try {
      const signature = checkSignatureFit(config, serving.io, candidate.io);
      if (signature.problems.length > 0) {
        return stop('signature', signature, {
          check: 'signature',
          subject: args.model,
          measured: `${signature.problems.length} problem(s)`,
          limit: 'fits',
          pass: false,
        });
      }
      const sampleSet = await samplesOf(config, pair.modelDir, args);
      const compared = await replay(config, serving, candidate, sampleSet, args.topK);
      const samples = {
        ...sampleSet.source,
        count: sampleSet.samples.length,
        rows: sampleSet.samples.reduce((n, s) => n + s.rows, 0),
      };
      if ('error' in compared) {
        return stop(
          'run',
          signature,
          {
            check: 'run',
            subject: compared.sample,
            measured: 'the candidate failed',
            limit: 'runs',
            pass: false,
          },
          { error: compared.error, samples },
        );
      }
      const latency: BatchLatency[] = await measureLatency(config, serving, candidate, {
        batchSizes: batchSizesFor(config, args.batchSizes),
        iterations: args.iterations,
        seed: args.seed,
      });
      const checks = [
        { check: 'signature', subject: args.model, measured: 'fits', limit: 'fits', pass: true },
        ...agreementChecks(compared.agreement, args.thresholds),
        ...latencyChecks(latency, args.thresholds),
      ];
      return {
        ...base,
        verdict: checks.every((c) => c.pass) ? 'pass' : 'fail',
        signature,
        samples,
        agreement: compared.agreement,
        latency,
        checks,
      };
    } finally {
      await candidate.release();
    }
  } finally {
    await serving.release();
  }
}

async function samplesOf(
  config: ModelConfig,
  modelDir: string,
  args: ValidateArgs,
): Promise<SampleSet> {
  try {
    return await chooseSamples(config, modelDir, {
      count: args.samples,
      seed: args.seed,
      requests: args.requests,
    });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw usage(`the model's samples cannot be read: ${message(e)}`);
  }
}

/** Every sample through both models; the candidate's first failure ends it (with ORT's message). */
async function replay(
  config: ModelConfig,
  serving: ModelSession,
  candidate: ModelSession,
  set: SampleSet,
  topK: number,
): Promise<{ agreement: OutputAgreement[] } | { sample: string; error: string }> {
  const outputs = config.output.map((t) => t.name);
  const batched = config.max_batch_size > 0;
  const acc = config.output.map((t) => {
    const datatype = fromConfigType(t.data_type);
    if (datatype === undefined) throw new Error(`unvalidated data_type ${t.data_type}`);
    return new AgreementAccumulator(t.name, datatype, topK);
  });
  for (const sample of set.samples) {
    let s;
    try {
      s = await serving.run(sample.feeds, outputs);
    } catch (e) {
      throw usage(`the serving version fails on ${sample.label}: ${message(e)}`);
    }
    let c;
    try {
      c = await candidate.run(sample.feeds, outputs);
    } catch (e) {
      return { sample: sample.label, error: message(e) };
    }
    acc.forEach((a, i) => {
      const st = s[i];
      const ct = c[i];
      if (st !== undefined && ct !== undefined) a.add(sample.label, st, ct, batched);
    });
  }
  return { agreement: acc.map((a) => a.result()) };
}

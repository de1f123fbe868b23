// What a result was measured on: the machine, the runtimes and the commit. Recorded in every
// result file so figures from different machines or commits are never compared unknowingly.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { REPO_ROOT } from '../paths.js';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpus: number;
  readonly memoryBytes: number;
  readonly os: string;
  readonly arch: string;
  readonly node: string;
  readonly onnxruntimeNode: string;
  readonly infernode: string;
  readonly commit: string;
  /** The working tree had uncommitted changes when the run started. */
  readonly dirty: boolean;
}

function packageVersion(name: string): string {
  try {
    const require = createRequire(import.meta.url);
    const file = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function git(args: readonly string[]): string | null {
  try {
    return execFileSync('git', args, {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  const ownPackage = JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')) as {
    version: string;
  };
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    node: process.version,
    onnxruntimeNode: packageVersion('onnxruntime-node'),
    infernode: ownPackage.version,
    commit: git(['rev-parse', 'HEAD']) ?? 'unknown',
    dirty: (git(['status', '--porcelain', '--untracked-files=no']) ?? '') !== '',
  };
}

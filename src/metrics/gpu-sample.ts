// What `nvidia-smi --query-gpu` is asked and how one of its CSV lines becomes a GPU sample: the
// command line, the line parser, and the energy total Triton reports. Pure: no process, no clock;
// gpu-metrics.ts owns the nvidia-smi process and feeds its lines here.

/**
 * The fields asked of nvidia-smi, in the order its CSV columns come (`nvidia-smi
 * --help-query-gpu`). With `nounits`: utilization in %, memory in MiB, power in W, energy in mJ.
 * `total_energy_consumption` is last so that the query without it (older drivers refuse the field)
 * keeps every other column where it was.
 */
export const GPU_QUERY_FIELDS = [
  'uuid',
  'utilization.gpu',
  'memory.total',
  'memory.used',
  'power.draw',
  'power.limit',
  'total_energy_consumption',
] as const;

/** The energy field, which drivers before Volta-era NVML refuse ('… is not a valid field …'). */
export const ENERGY_FIELD = 'total_energy_consumption';

/**
 * The argv (after the command name) of the one long-running query: every field, CSV without header
 * or units, one line per GPU every `intervalMs` (`-lms`, nvidia-smi's loop in milliseconds).
 * Without `withEnergy`, the query leaves out total_energy_consumption.
 */
export function nvidiaSmiArgs(intervalMs: number, withEnergy = true): string[] {
  const fields = withEnergy ? GPU_QUERY_FIELDS : GPU_QUERY_FIELDS.filter((f) => f !== ENERGY_FIELD);
  return [
    `--query-gpu=${fields.join(',')}`,
    '--format=csv,noheader,nounits',
    '-lms',
    String(intervalMs),
  ];
}

/** One GPU at one moment, in Triton's units; a field the GPU does not report is absent. */
export interface GpuSample {
  readonly uuid: string;
  /** 0.0 to 1.0 (nvidia-smi's percent / 100), as nv_gpu_utilization. */
  readonly utilization?: number;
  readonly memoryTotalBytes?: number;
  readonly memoryUsedBytes?: number;
  readonly powerWatts?: number;
  readonly powerLimitWatts?: number;
  /** The driver's energy counter, in joules since the driver loaded (not since the server began). */
  readonly driverEnergyJoules?: number;
}

/** One GPU as the metrics show it: its latest sample (none while nvidia-smi is restarting). */
export interface GpuReading {
  readonly uuid: string;
  readonly sample: GpuSample | undefined;
  /** Joules since the server started watching this GPU (EnergyTotal). */
  readonly energyJoules: number | undefined;
}

const MIB = 1024 * 1024;

/**
 * Parses one CSV line of the query built by `nvidiaSmiArgs(_, withEnergy)`. Returns undefined for
 * a line that is not a sample (a blank line, an error message, a line with the wrong column count
 * or no uuid). A column nvidia-smi cannot fill ("[N/A]", "[Not Supported]", "[Unknown Error]", or
 * anything else that is not a finite number) is left out, so its series is omitted.
 */
export function parseGpuLine(line: string, withEnergy = true): GpuSample | undefined {
  const cols = line.split(',').map((c) => c.trim());
  if (cols.length !== (withEnergy ? 7 : 6)) return undefined;
  const [uuid, util, memTotal, memUsed, power, powerLimit, energy] = cols;
  // GPU UUIDs are 'GPU-' plus a UUID (MIG devices 'MIG-…'); anything else is not a sample line.
  if (uuid === undefined || !/^(GPU|MIG)-[0-9A-Za-z-]+$/.test(uuid)) return undefined;
  const sample: { -readonly [K in keyof GpuSample]: GpuSample[K] } = { uuid };
  const u = num(util);
  if (u !== undefined) sample.utilization = u / 100;
  const total = num(memTotal);
  if (total !== undefined) sample.memoryTotalBytes = total * MIB;
  const used = num(memUsed);
  if (used !== undefined) sample.memoryUsedBytes = used * MIB;
  const p = num(power);
  if (p !== undefined) sample.powerWatts = p;
  const limit = num(powerLimit);
  if (limit !== undefined) sample.powerLimitWatts = limit;
  const e = withEnergy ? num(energy) : undefined;
  if (e !== undefined) sample.driverEnergyJoules = e / 1000;
  return sample;
}

function num(text: string | undefined): number | undefined {
  // Number('') is 0: an empty column is a missing value, not zero.
  if (text === undefined || text === '' || text.startsWith('[')) return undefined;
  const x = Number(text);
  return Number.isFinite(x) && x >= 0 ? x : undefined;
}

/** True when nvidia-smi's output says this driver does not know total_energy_consumption. */
export function rejectsEnergyField(output: string): boolean {
  return output.includes(ENERGY_FIELD) && /not a valid field/i.test(output);
}

/**
 * nv_energy_consumption for one GPU: joules since the server started watching it, as Triton
 * reports (its DCGM reading minus the first one). From the driver's counter where the query has
 * it; otherwise power.draw integrated over the time between samples (each sample's power held
 * until the next, as nvidia-smi's own reading is an average over its last period).
 */
export class EnergyTotal {
  #joules = 0;
  /** Whether any sample gave energy or power: until then there is no figure to report. */
  #known = false;
  #firstDriverJoules: number | undefined;
  #lastDriverJoules: number | undefined;
  #lastPowerWatts: number | undefined;
  #lastAtMs: number | undefined;

  /** Joules so far; undefined until a sample could give any (no counter and no power yet). */
  get joules(): number | undefined {
    return this.#known ? this.#joules : undefined;
  }

  /** Takes `sample`, read at `atMs` on a monotonic clock. */
  add(sample: GpuSample, atMs: number): void {
    const driver = sample.driverEnergyJoules;
    if (driver !== undefined) {
      this.#known = true;
      this.#firstDriverJoules ??= driver;
      // The counter restarts when the driver reloads: keep what was counted and go on from there.
      if (this.#lastDriverJoules !== undefined && driver < this.#lastDriverJoules) {
        this.#firstDriverJoules = driver - this.#joules;
      }
      this.#lastDriverJoules = driver;
      this.#joules = driver - this.#firstDriverJoules;
      return;
    }
    if (this.#firstDriverJoules !== undefined) return; // the counter went [N/A] for a moment
    const last = this.#lastAtMs;
    if (this.#lastPowerWatts !== undefined && last !== undefined && atMs > last) {
      this.#joules += (this.#lastPowerWatts * (atMs - last)) / 1000;
    }
    // A gap with no power reading counts nothing: the power in it is unknown.
    this.#lastPowerWatts = sample.powerWatts;
    this.#lastAtMs = atMs;
    if (sample.powerWatts !== undefined) this.#known = true;
  }
}

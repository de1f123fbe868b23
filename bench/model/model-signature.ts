// What a benchmark needs to know about a model: its inputs (name, datatype, dims) and whether it
// batches. Read from a running server (KServe metadata + Triton's config, over HTTP or gRPC) or, for the
// comparators that have no server, from the same config pipeline infernode uses.

import { fromConfigType, isDatatype, type Datatype, type ModelConfig } from 'infernode/tooling';
import { UsageError } from '../options/usage-error.js';
import { describeGrpcError, type GrpcServiceClient } from './grpc-service.js';
import { modelPath } from './kserve-paths.js';

export interface TensorSpec {
  readonly name: string;
  readonly datatype: Datatype;
  /** Dims without the batch dimension; -1 = variable (needs --shape). */
  readonly dims: readonly number[];
}

export interface ModelSignature {
  readonly name: string;
  /** 0: the model does not batch, and requests carry no batch dimension. */
  readonly maxBatchSize: number;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /** The config has `sequence_batching`: requests must come as sequences. */
  readonly sequenceBatching: boolean;
}

/** One input as every request of the run sends it. */
export interface ResolvedInput {
  readonly name: string;
  readonly datatype: Datatype;
  /** Shape of one batch row (the model's dims with --shape applied). */
  readonly rowShape: readonly number[];
  /** Shape on the wire: [batch, ...rowShape] when the model batches, else rowShape. */
  readonly shape: readonly number[];
  readonly rowElements: number;
}

interface MetadataTensor {
  name?: unknown;
  datatype?: unknown;
  shape?: unknown;
}

function tensorFromMetadata(t: MetadataTensor, batched: boolean, where: string): TensorSpec {
  if (typeof t.name !== 'string' || !isDatatype(t.datatype) || !Array.isArray(t.shape)) {
    throw new UsageError(`${where}: expected {name, datatype, shape}, got ${JSON.stringify(t)}`);
  }
  const shape = t.shape.map(Number);
  return { name: t.name, datatype: t.datatype, dims: batched ? shape.slice(1) : shape };
}

/** From `GET /v2/models/{m}` and (when the server has it) `GET /v2/models/{m}/config`. */
export function signatureFromMetadata(metadata: unknown, config: unknown): ModelSignature {
  const m = metadata as { name?: unknown; inputs?: unknown; outputs?: unknown };
  if (typeof m.name !== 'string' || !Array.isArray(m.inputs) || !Array.isArray(m.outputs)) {
    throw new UsageError(
      `model metadata lacks name/inputs/outputs: ${JSON.stringify(metadata).slice(0, 300)}`,
    );
  }
  const configMbs = (config as { max_batch_size?: unknown } | null)?.max_batch_size;
  const firstDim = (m.inputs as MetadataTensor[])[0]?.shape;
  // Without a config, a leading -1 on the inputs is taken as the batch dimension, as KServe
  // metadata writes it; the true limit is then unknown, so it is not enforced.
  const maxBatchSize =
    configMbs !== undefined
      ? Number(configMbs)
      : Array.isArray(firstDim) && firstDim[0] === -1
        ? Number.MAX_SAFE_INTEGER
        : 0;
  const batched = maxBatchSize > 0;
  const sequencing = (config as { sequence_batching?: unknown } | null)?.sequence_batching;
  return {
    name: m.name,
    maxBatchSize,
    sequenceBatching: sequencing !== undefined && sequencing !== null,
    inputs: (m.inputs as MetadataTensor[]).map((t) => tensorFromMetadata(t, batched, 'input')),
    outputs: (m.outputs as MetadataTensor[]).map((t) => tensorFromMetadata(t, batched, 'output')),
  };
}

export function signatureFromConfig(config: ModelConfig): ModelSignature {
  const tensor = (t: ModelConfig['input'][number]): TensorSpec => {
    const datatype = fromConfigType(t.data_type);
    if (datatype === undefined)
      throw new UsageError(`${t.name}: unsupported data_type ${t.data_type}`);
    return { name: t.name, datatype, dims: [...t.dims] };
  };
  return {
    name: config.name,
    maxBatchSize: config.max_batch_size,
    sequenceBatching: config.sequence_batching !== undefined,
    inputs: config.input.map(tensor),
    outputs: config.output.map(tensor),
  };
}

export async function fetchSignature(
  base: string,
  model: string,
  version: string,
): Promise<ModelSignature> {
  const metaRes = await fetch(base + modelPath(model, version, ''));
  if (!metaRes.ok) {
    throw new UsageError(
      `GET ${modelPath(model, version, '')}: HTTP ${metaRes.status} ${await metaRes.text()}`,
    );
  }
  const metadata: unknown = await metaRes.json();
  const configRes = await fetch(base + modelPath(model, version, 'config'));
  const config: unknown = configRes.ok
    ? await configRes.json()
    : (await configRes.body?.cancel(), null);
  return signatureFromMetadata(metadata, config);
}

/** The same from gRPC `ModelMetadata` and (when the server has it) `ModelConfig`. */
export async function fetchGrpcSignature(
  client: GrpcServiceClient,
  model: string,
  version: string,
): Promise<ModelSignature> {
  const request = { name: model, version };
  const metadata = await client.call('ModelMetadata', request).catch((e: unknown) => {
    throw new UsageError(`ModelMetadata ${model} at ${client.target}: ${describeGrpcError(e)}`);
  });
  const config = await client.call('ModelConfig', request).then(
    (r) => (r as { config?: unknown }).config ?? null,
    () => null,
  );
  return signatureFromMetadata(metadata, config);
}

/** Applies --shape and the batch size; every dim must end up fixed. */
export function resolveInputs(
  sig: ModelSignature,
  shapes: Readonly<Record<string, readonly number[]>>,
  batchSize: number,
): ResolvedInput[] {
  if (sig.maxBatchSize === 0 && batchSize !== 1) {
    throw new UsageError(
      `model "${sig.name}" does not batch (max_batch_size 0): -b must be 1, got ${batchSize}`,
    );
  }
  if (batchSize > sig.maxBatchSize && sig.maxBatchSize > 0) {
    throw new UsageError(
      `-b ${batchSize} is over model "${sig.name}"'s max_batch_size ${sig.maxBatchSize}`,
    );
  }
  for (const name of Object.keys(shapes)) {
    if (!sig.inputs.some((i) => i.name === name)) {
      const known = sig.inputs.map((i) => i.name).join(', ');
      throw new UsageError(`--shape ${name}: the model has no such input (inputs: ${known})`);
    }
  }
  return sig.inputs.map((input) => {
    const given = shapes[input.name];
    let rowShape: readonly number[];
    if (given !== undefined) {
      const fits =
        given.length === input.dims.length &&
        given.every((d, i) => input.dims[i] === -1 || input.dims[i] === d);
      if (!fits) {
        throw new UsageError(
          `--shape ${input.name}:${given.join(',')} does not fit the model's dims [${input.dims.join(',')}]` +
            ' (give the dims without the batch dimension)',
        );
      }
      rowShape = given;
    } else if (input.dims.some((d) => d < 0)) {
      throw new UsageError(
        `input ${input.name} has variable dims [${input.dims.join(',')}]: give --shape ${input.name}:` +
          input.dims.map((d) => (d < 0 ? 'N' : String(d))).join(','),
      );
    } else {
      rowShape = input.dims;
    }
    return {
      name: input.name,
      datatype: input.datatype,
      rowShape,
      shape: sig.maxBatchSize > 0 ? [batchSize, ...rowShape] : rowShape,
      rowElements: rowShape.reduce((a, b) => a * b, 1),
    };
  });
}

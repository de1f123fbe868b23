// The "naive" comparator: the KServe v2 JSON endpoint as a Node team would write it by hand with
// Fastify — one onnxruntime-node InferenceSession on the main thread, JSON in, JSON out. It is not
// sabotaged (no logging, the session is created once, Fastify's own JSON parser) and not tuned
// beyond the obvious (a body limit large enough for big batches). Run as a child process:
//   node dist/bench/targets/naive-fastify-server.js --model <file.onnx> --name <model> [--port N]
//     [--threads 1]
// Without --threads the session keeps ORT's defaults, whose intra-op pool spins on every core and
// slows a server sharing those cores; `--threads 1` (intra- and inter-op pools of one thread) is the
// fair naive baseline of the per-request overhead issue: what one thread doing everything costs.
// It prints one JSON line with "httpPort" once it listens, like infernode.

import { fastify, type FastifyReply, type FastifyRequest } from 'fastify';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { parseArgs } from 'node:util';

interface InferInput {
  name: string;
  datatype: string;
  shape: number[];
  data: unknown[];
}

interface InferBody {
  id?: string;
  inputs: InferInput[];
}

// KServe datatype -> ORT tensor type and the typed array a hand-written server would reach for.
const TYPES: Record<string, { ort: Tensor.Type; make: (values: number[]) => Tensor.DataType }> = {
  FP32: { ort: 'float32', make: (v) => Float32Array.from(v) },
  FP64: { ort: 'float64', make: (v) => Float64Array.from(v) },
  INT32: { ort: 'int32', make: (v) => Int32Array.from(v) },
  INT64: { ort: 'int64', make: (v) => BigInt64Array.from(v, (n) => BigInt(n)) },
  UINT8: { ort: 'uint8', make: (v) => Uint8Array.from(v) },
  INT8: { ort: 'int8', make: (v) => Int8Array.from(v) },
};

const KSERVE_NAMES: Record<string, string> = {
  float32: 'FP32',
  float64: 'FP64',
  int32: 'INT32',
  int64: 'INT64',
  uint8: 'UINT8',
  int8: 'INT8',
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string' },
      name: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '0' },
      threads: { type: 'string' },
    },
  });
  if (values.model === undefined || values.name === undefined) {
    throw new Error(
      'usage: naive-fastify-server --model <file.onnx> --name <model> [--port N] [--threads N]',
    );
  }
  const modelName = values.name;
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1)) {
    throw new Error(`--threads: expected an integer >= 1, got "${values.threads ?? ''}"`);
  }
  const session = await InferenceSession.create(
    values.model,
    threads === undefined ? {} : { intraOpNumThreads: threads, interOpNumThreads: threads },
  );
  const app = fastify({ bodyLimit: 64 * 1024 * 1024 });

  app.get('/v2/health/ready', async () => ({}));

  const infer = async (
    req: FastifyRequest<{ Params: { model: string }; Body: InferBody }>,
    reply: FastifyReply,
  ): Promise<unknown> => {
    if (req.params.model !== modelName) {
      return reply.code(404).send({ error: `unknown model ${req.params.model}` });
    }
    const feeds: Record<string, Tensor> = {};
    for (const input of req.body.inputs) {
      const type = TYPES[input.datatype];
      if (type === undefined) {
        return reply.code(400).send({ error: `unsupported datatype ${input.datatype}` });
      }
      feeds[input.name] = new Tensor(
        type.ort,
        type.make(input.data.flat(Infinity) as number[]),
        input.shape,
      );
    }
    const results = await session.run(feeds);
    return {
      model_name: modelName,
      model_version: '1',
      id: req.body.id,
      outputs: Object.entries(results).map(([name, tensor]) => ({
        name,
        datatype: KSERVE_NAMES[tensor.type] ?? tensor.type,
        shape: tensor.dims,
        data: Array.from(tensor.data as ArrayLike<number | bigint>, (x) => Number(x)),
      })),
    };
  };
  app.post('/v2/models/:model/infer', infer);
  app.post('/v2/models/:model/versions/:version/infer', infer);

  await app.listen({ host: values.host, port: Number(values.port) });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(
    `${JSON.stringify({ msg: 'naive fastify server listening', httpPort: port, pid: process.pid })}\n`,
  );
  const shutdown = (): void => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((e: unknown) => {
  process.stderr.write(
    `naive-fastify-server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(1);
});

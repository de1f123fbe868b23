// Triton's repository RPCs (RepositoryModelLoad, RepositoryModelUnload, RepositoryIndex) over
// gRPC, for the model-management benches: they drive loads in a spawned server, so the memory
// they read from /proc is the server's alone, and the bench process holds no server state.

import { credentials, makeClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { tritonServices } from 'infernode/tooling';

/** One row of RepositoryIndexResponse (proto-loader fills absent strings with ''). */
export interface IndexModel {
  readonly name: string;
  readonly version: string;
  readonly state: string;
  readonly reason: string;
}

export class RepositoryRpc {
  private readonly client: Client;

  constructor(target: string) {
    const Service = makeClientConstructor(tritonServices().inference, 'GRPCInferenceService');
    this.client = new Service(target, credentials.createInsecure());
  }

  /** Loads or reloads `model`; resolves when the server says its new versions serve. */
  async load(model: string): Promise<void> {
    await this.unary('RepositoryModelLoad', { model_name: model });
  }

  /** Unloads `model`; resolves when its versions have drained and their workers have exited. */
  async unload(model: string): Promise<void> {
    await this.unary('RepositoryModelUnload', { model_name: model });
  }

  async index(): Promise<IndexModel[]> {
    const r = (await this.unary('RepositoryIndex', { ready: false })) as { models: IndexModel[] };
    return r.models;
  }

  close(): void {
    this.client.close();
  }

  private unary(rpc: string, request: object): Promise<unknown> {
    const method = (this.client as unknown as Record<string, unknown>)[rpc] as (
      req: object,
      done: (err: ServiceError | null, res: unknown) => void,
    ) => void;
    return new Promise((resolve, reject) => {
      method.call(this.client, request, (err, res) => {
        if (err === null) resolve(res);
        else reject(new Error(`${rpc}: ${err.details || err.message}`));
      });
    });
  }
}

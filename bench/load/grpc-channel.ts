// A gRPC channel of the load generator: one HTTP/2 connection of its own, connected before any
// request, carrying pre-serialized bytes both ways (identity serializers), and what a connection
// tells its loop.

import { Client, credentials } from '@grpc/grpc-js';
import { CHANNEL_OPTIONS, describeGrpcError } from '../model/grpc-service.js';
import type { RequestOutcome } from './multiplexed-connection.js';

export interface GrpcTarget {
  readonly host: string;
  readonly port: number;
}

export type GrpcOutcomeCallback<C> = (conn: C, outcome: RequestOutcome) => void;

/** The identity serializer: requests are serialized once, answers read as bytes. */
export const passBytes = (b: Buffer): Buffer => b;

/**
 * A new channel to `target`, connected: resolves once its HTTP/2 connection is up, so connection
 * set-up never lands in a latency.
 */
export async function connectChannel(target: GrpcTarget, timeoutMs: number): Promise<Client> {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const client = new Client(
    `${host}:${target.port}`,
    credentials.createInsecure(),
    CHANNEL_OPTIONS,
  );
  try {
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(Date.now() + timeoutMs, (e) => (e === undefined ? resolve() : reject(e))),
    );
  } catch (e) {
    client.close();
    throw new Error(`no gRPC connection within ${timeoutMs} ms: ${describeGrpcError(e)}`);
  }
  return client;
}

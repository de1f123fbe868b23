// The one front-end adapter interface. An adapter owns a listening socket and the HTTP framing
// rules of its library (uWebSockets.js or node:http); it turns each request into an `HttpCall`,
// hands it to the transport-agnostic handler, and writes the `HttpReply` back. It knows nothing of
// models, tensors or the KServe protocol.

export interface HttpCall {
  /** Upper-case ('GET', 'POST'), whatever case the adapter's library reports. */
  readonly method: string;
  /** The path without the query string, not percent-decoded. */
  readonly path: string;
  readonly query: string;
  /** Lower-case header name -> value. */
  header(name: string): string | undefined;
  /** The whole body, read under the adapter's size limit (empty for GET). */
  readonly body: Uint8Array;
  /** Aborted when the client goes away before the reply is written. */
  readonly signal: AbortSignal;
}

export interface HttpReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as UTF-8; a list of chunks is written in order without concatenation. */
  readonly body: string | Uint8Array | readonly Uint8Array[];
  /**
   * Called exactly once when the adapter holds no more references to `body`: `true` once the last
   * byte is handed to the socket, `false` if the client went away first (or before the reply was
   * ready). Chunks that view pooled tensor memory are released here, not when the handler returns:
   * a large reply is written under backpressure long after that.
   */
  readonly onFinished?: (delivered: boolean) => void;
}

export type HttpHandler = (call: HttpCall) => Promise<HttpReply> | HttpReply;

export interface FrontEndOptions {
  readonly host: string;
  readonly port: number;
  /** Bodies over this many bytes get 400 before any allocation (--http-max-input-size). */
  readonly maxBodyBytes: number;
  // The WebSocket route (a later issue) goes here, e.g. `websocket?: WebSocketRoute`: each adapter
  // attaches it to the same listening port before its catch-all HTTP route.
}

export interface FrontEnd {
  /** 'uws' or 'node-http', for the start-up log line. */
  readonly kind: string;
  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(handler: HttpHandler): Promise<number>;
  /** Stops accepting new connections; in-flight replies still complete. */
  stopAccepting(): Promise<void>;
  /** Closes every connection. */
  close(): Promise<void>;
}

// Prebuilt HTTP/1.1 request bytes: request line, headers and body in one buffer, built once per
// payload before the run, so sending a request is a single socket write with no formatting.

export interface RequestBody {
  readonly body: Uint8Array;
  readonly contentType: string;
  /** Binary tensor extension: length of the JSON header at the front of the body. */
  readonly inferenceHeaderLength?: number;
}

export function buildHttpRequest(
  host: string,
  port: number,
  path: string,
  req: RequestBody,
): Buffer {
  const lines = [
    `POST ${path} HTTP/1.1`,
    `Host: ${host}:${port}`,
    `Content-Type: ${req.contentType}`,
    `Content-Length: ${req.body.byteLength}`,
  ];
  if (req.inferenceHeaderLength !== undefined) {
    lines.push(`Inference-Header-Content-Length: ${req.inferenceHeaderLength}`);
  }
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return Buffer.concat([head, req.body]);
}

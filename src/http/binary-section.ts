// The bytes after the JSON header of a binary-tensor-extension request, handed out in order to the
// inputs whose parameters carry `binary_data_size`. Every input gets a zero-copy view of the body;
// the sizes must add up to exactly the bytes present.

import { fail } from '../errors.js';

export class BinarySection {
  private at = 0;
  private lastName: string | undefined;

  /**
   * @param bytes everything after the JSON header; empty for a JSON-only body.
   * @param framed whether the request had an Inference-Header-Content-Length header (for messages).
   */
  constructor(
    private readonly bytes: Uint8Array,
    private readonly framed: boolean,
  ) {}

  /** The next `size` bytes for input `name` (a view of the body, not a copy). */
  take(name: string, size: number): Uint8Array {
    const left = this.bytes.length - this.at;
    if (size > left) {
      if (!this.framed) {
        throw fail(
          'BAD_REQUEST',
          `input ${name}: parameters.binary_data_size is ${size}, but the request has no binary ` +
            `data; send the JSON size in the Inference-Header-Content-Length header and the ` +
            `tensor bytes after the JSON`,
        );
      }
      throw fail(
        'BYTE_SIZE_MISMATCH',
        `input ${name}: parameters.binary_data_size is ${size}, but only ${left} bytes of binary ` +
          `data remain after the JSON header`,
      );
    }
    const view = this.bytes.subarray(this.at, this.at + size);
    this.at += size;
    this.lastName = name;
    return view;
  }

  /** Every byte must belong to some input: trailing bytes mean the sizes are wrong. */
  finish(): void {
    if (this.at === this.bytes.length) return;
    throw fail(
      'BYTE_SIZE_MISMATCH',
      this.lastName === undefined
        ? `no input declares parameters.binary_data_size, but ${this.bytes.length} bytes follow ` +
            `the JSON header`
        : `the binary inputs declare ${this.at} bytes in total (the last one, input ` +
            `${this.lastName}, ends there), but ${this.bytes.length} bytes follow the JSON header`,
    );
  }
}

// HPACK (RFC 7541) for the load generator's HTTP/2 client. Requests: a header block encoded once
// per RPC path, as literals without indexing and without Huffman coding, so it never touches the
// server's dynamic table and can be sent again and again as the same bytes. Responses: one decoder
// per connection (the dynamic table is the connection's), walking the representations of §6 over
// hpack.js's integer/string decoder (Huffman included) and header table.

import hpack from 'hpack.js';

export type HeaderField = readonly [name: string, value: string];

/** A header block of `fields`, each a literal header field without indexing, new name (§6.2.2). */
export function encodeHeaderBlock(fields: readonly HeaderField[]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from([0x00]), hpackString(name), hpackString(value));
  }
  return Buffer.concat(parts);
}

/** A string literal, not Huffman-coded: a 7-bit-prefix length, then the octets. */
function hpackString(text: string): Buffer {
  const octets = Buffer.from(text, 'latin1');
  return Buffer.concat([hpackInt(octets.length, 7, 0x00), octets]);
}

/** An integer with an `n`-bit prefix (§5.1), the prefix byte's upper bits set to `high`. */
function hpackInt(value: number, n: number, high: number): Buffer {
  const max = (1 << n) - 1;
  if (value < max) return Buffer.from([high | value]);
  const out = [high | max];
  let rest = value - max;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Buffer.from(out);
}

/** The dynamic table size this client allows the server (SETTINGS_HEADER_TABLE_SIZE default). */
export const HEADER_TABLE_BYTES = 4096;

/**
 * A connection's response header blocks, in the order they arrived (every block must be decoded,
 * even one for a stream this side gave up on, or the dynamic table goes out of step).
 */
export class HeaderBlockDecoder {
  private readonly table = hpack.table.create({ maxSize: HEADER_TABLE_BYTES });

  /** The block's fields in order; throws on a block that is not valid HPACK (COMPRESSION_ERROR). */
  decode(block: Buffer): HeaderField[] {
    const fields: HeaderField[] = [];
    if (block.length === 0) return fields;
    const d = hpack.decoder.create();
    d.push(block);
    while (!d.isEmpty()) {
      if (d.decodeBit() === 1) {
        // §6.1 indexed header field.
        const e = this.table.lookup(d.decodeInt());
        fields.push([e.name, e.value]);
        continue;
      }
      const incremental = d.decodeBit() === 1;
      if (!incremental) {
        if (d.decodeBit() === 1) {
          // §6.3 dynamic table size update.
          this.table.updateSize(d.decodeInt());
          continue;
        }
        d.decodeBit(); // never-indexed or not: the same to a reader
      }
      // §6.2 literal header field, the name indexed (non-zero) or literal (zero).
      const index = d.decodeInt();
      let name: string;
      let nameSize: number;
      if (index === 0) {
        const octets = d.decodeStr();
        name = hpack.utils.stringify(octets);
        nameSize = octets.length;
      } else {
        const e = this.table.lookup(index);
        name = e.name;
        nameSize = e.nameSize;
      }
      const octets = d.decodeStr();
      const value = hpack.utils.stringify(octets);
      if (incremental) this.table.add(name, value, nameSize, octets.length);
      fields.push([name, value]);
    }
    return fields;
  }
}

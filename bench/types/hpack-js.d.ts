// The part of hpack.js (2.x, which ships no types) the load generator's HTTP/2 client uses: its
// bit-level decoder (integers and strings, Huffman included) and its header table (the static one
// plus a connection's dynamic one). The representations around them are decoded in
// bench/load/h2-header-block.ts.

declare module 'hpack.js' {
  interface TableEntry {
    readonly name: string;
    readonly value: string;
    readonly nameSize: number;
  }
  interface Decoder {
    push(chunk: Buffer): void;
    isEmpty(): boolean;
    decodeBit(): number;
    decodeInt(): number;
    /** A Buffer for a plain string, an array of octets for a Huffman-coded one. */
    decodeStr(): Buffer | number[];
  }
  interface Table {
    lookup(index: number): TableEntry;
    add(name: string, value: string, nameSize: number, valueSize: number): void;
    updateSize(size: number): void;
  }
  const hpack: {
    decoder: { create(): Decoder };
    table: { create(options: { maxSize: number }): Table };
    utils: { stringify(octets: Buffer | number[]): string };
    compressor: {
      create(options: { table: { maxSize: number } }): {
        write(
          headers: { name: string; value: string; huffman?: boolean; neverIndex?: boolean }[],
        ): void;
        read(): Buffer | null;
      };
    };
  };
  export default hpack;
}

// A structural pre-scan of a msgpack frame, run before msgpackr sees it: one iterative pass that
// refuses what a request frame never contains and what would make a decoder allocate or recurse
// out of proportion to the frame (the HTTP JSON path does the same with its depth pre-scan).
//
// Refused: nesting deeper than MAX_FRAME_DEPTH (msgpackr recurses per level and overflows the stack
// near 10,000), an array or map header claiming more entries than the bytes left could hold (an
// array32 of 2^32-1 in a 10-byte frame), ext types (msgpackr would build Dates, Errors, RegExps or
// record structures from them; the protocol has none), non-string map keys, the reserved 0xc1,
// truncation anywhere, and trailing bytes after the frame. Payloads (`bin`) are skipped in O(1).
//
// Along the way it reads the top-level `id`, and is the one reader of it: only here is the msgpack
// format of the id known, which tells the float 5.0 from the integer 5 and a uint 64 from a
// rounded number. A frame refused later still gets an error frame naming its request.

import { ABSENT_ID, invalidId, readNumberId, readStringId, type IdReading } from './frame-id.js';
import { MAX_FRAME_DEPTH } from './ws-protocol.js';

/** The lengths of the root map's `inputs` and `outputs` arrays (0 when absent or not arrays). */
export interface ListLengths {
  inputs: number;
  outputs: number;
}

export type ScanResult =
  | { readonly ok: true; readonly id: IdReading; readonly lists: Readonly<ListLengths> }
  | { readonly ok: false; readonly id: IdReading; readonly reason: string };

/** One open container: entries still to read, and whether it is a map (keys at even positions). */
interface Open {
  left: number;
  readonly map: boolean;
  readonly root: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });
// Ids are echoed byte for byte, so an id that is not UTF-8 is refused rather than repaired.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function scanMsgpack(bytes: Uint8Array): ScanResult {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  const stack: Open[] = [];
  let at = 0;
  let id: IdReading = ABSENT_ID;
  // Set when the root map's key just read was "id": the next value is the id.
  let nextIsId = false;
  // Set when it was "inputs" or "outputs": an array header next gives the list's length, which the
  // frame decoder checks before msgpackr makes an object of every entry.
  let nextIsList: keyof ListLengths | undefined;
  const lists: ListLengths = { inputs: 0, outputs: 0 };
  let sawRoot = false;

  const failed = (reason: string): ScanResult => ({
    ok: false,
    id,
    reason: `${reason} (at byte ${at} of ${end})`,
  });
  const need = (n: number): boolean => end - at >= n;

  for (;;) {
    // Close every container that has read all its entries.
    let top = stack[stack.length - 1];
    while (top !== undefined && top.left === 0) {
      stack.pop();
      top = stack[stack.length - 1];
    }
    if (top === undefined && sawRoot) break;
    const isKey = top !== undefined && top.map && top.left % 2 === 0;
    const isId = nextIsId;
    nextIsId = false;
    const list = nextIsList;
    nextIsList = undefined;
    if (top !== undefined) top.left -= 1;
    if (!need(1)) return failed('the frame ends in the middle of a value');
    const b = bytes[at] as number;
    at += 1;

    if (!sawRoot) {
      sawRoot = true;
      if (!((b >= 0x80 && b <= 0x8f) || b === 0xde || b === 0xdf)) {
        return failed('a frame must be a msgpack map');
      }
    }
    if (isKey && !((b >= 0xa0 && b <= 0xbf) || (b >= 0xd9 && b <= 0xdb))) {
      return failed('map keys must be strings');
    }

    if (isId) id = readIdValue(bytes, view, at - 1);
    // Positive and negative fixints are the whole value.
    if (b <= 0x7f || b >= 0xe0) continue;
    let container: { n: number; map: boolean } | undefined;
    let skip = 0; // bytes of payload after the header
    let str = false;
    if (b <= 0x8f) container = { n: b & 0x0f, map: true };
    else if (b <= 0x9f) container = { n: b & 0x0f, map: false };
    else if (b <= 0xbf) {
      skip = b & 0x1f;
      str = true;
    } else {
      switch (b) {
        case 0xc0:
        case 0xc2:
        case 0xc3:
          continue;
        case 0xc4:
        case 0xd9:
          if (!need(1)) return failed('truncated length');
          skip = view.getUint8(at);
          at += 1;
          str = b === 0xd9;
          break;
        case 0xc5:
        case 0xda:
          if (!need(2)) return failed('truncated length');
          skip = view.getUint16(at);
          at += 2;
          str = b === 0xda;
          break;
        case 0xc6:
        case 0xdb:
          if (!need(4)) return failed('truncated length');
          skip = view.getUint32(at);
          at += 4;
          str = b === 0xdb;
          break;
        case 0xca:
        case 0xce:
        case 0xd2:
          skip = 4;
          break;
        case 0xcb:
        case 0xcf:
        case 0xd3:
          skip = 8;
          break;
        case 0xcc:
        case 0xd0:
          skip = 1;
          break;
        case 0xcd:
        case 0xd1:
          skip = 2;
          break;
        case 0xdc:
        case 0xde:
          if (!need(2)) return failed('truncated container length');
          container = { n: view.getUint16(at), map: b === 0xde };
          at += 2;
          break;
        case 0xdd:
        case 0xdf:
          if (!need(4)) return failed('truncated container length');
          container = { n: view.getUint32(at), map: b === 0xdf };
          at += 4;
          break;
        default:
          // 0xc1 (never used) and every ext type (0xc7-0xc9, 0xd4-0xd8).
          return failed(`msgpack type 0x${b.toString(16)} is not allowed in a frame`);
      }
    }
    if (list !== undefined && container !== undefined && !container.map) lists[list] = container.n;
    if (container !== undefined) {
      // Each entry takes at least one byte: a count the remaining bytes cannot hold is a lie, and
      // refusing it here keeps a decoder from pre-sizing anything from it.
      const entries = container.map ? container.n * 2 : container.n;
      if (entries > end - at) {
        return failed(
          `a ${container.map ? 'map' : 'array'} header claims ${container.n} entries, ` +
            `more than the ${end - at} bytes left could hold`,
        );
      }
      if (stack.length >= MAX_FRAME_DEPTH) {
        return failed(`the frame nests deeper than ${MAX_FRAME_DEPTH} levels`);
      }
      stack.push({ left: entries, map: container.map, root: stack.length === 0 });
      continue;
    }
    if (!need(skip)) return failed(`a value claims ${skip} bytes, but ${end - at} remain`);
    if (str && isKey && top?.root === true) {
      const key = utf8.decode(bytes.subarray(at, at + skip));
      nextIsId = key === 'id';
      if (key === 'inputs' || key === 'outputs') {
        nextIsList = key;
        lists[key] = 0; // a repeated key: the last one stands, as in msgpackr's object
      }
    }
    at += skip;
  }
  if (at !== end) return failed(`${end - at} bytes follow the end of the frame`);
  return { ok: true, id, lists };
}

/**
 * The id value whose type byte sits at `start`. A value cut short reads as absent: the scan then
 * refuses the frame as truncated. A usable id keeps a copy of its bytes, to be echoed as they are.
 */
function readIdValue(bytes: Uint8Array, view: DataView, start: number): IdReading {
  const b = bytes[start] as number;
  const at = start + 1;
  const left = bytes.byteLength - at;
  // A copy (not slice(), which is a view on a Buffer): the id outlives the frame, whose memory
  // uWS reuses.
  const copy = (payload: number): Uint8Array => new Uint8Array(bytes.subarray(start, at + payload));
  if (b <= 0x7f) return readNumberId(b, 'positive fixint', copy(0));
  if (b >= 0xe0) return readNumberId(b - 0x100, 'negative fixint', copy(0));
  if (b >= 0xa0 && b <= 0xbf) return stringId(bytes, start, at, b & 0x1f);
  if (b >= 0x80 && b <= 0x8f) return invalidId('a map');
  if (b >= 0x90 && b <= 0x9f) return invalidId('an array');
  const number = NUMBER_FORMATS[b];
  if (number !== undefined) {
    if (left < number.bytes) return ABSENT_ID;
    return readNumberId(number.read(view, at), number.name, copy(number.bytes));
  }
  switch (b) {
    case 0xc0:
      return invalidId('nil');
    case 0xc2:
    case 0xc3:
      return invalidId(`the boolean ${b === 0xc3}`);
    case 0xd9:
      return left < 1 ? ABSENT_ID : stringId(bytes, start, at + 1, view.getUint8(at));
    case 0xda:
      return left < 2 ? ABSENT_ID : stringId(bytes, start, at + 2, view.getUint16(at));
    case 0xdb:
      return left < 4 ? ABSENT_ID : stringId(bytes, start, at + 4, view.getUint32(at));
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return invalidId('a bin');
    case 0xdc:
    case 0xdd:
      return invalidId('an array');
    case 0xde:
    case 0xdf:
      return invalidId('a map');
    default:
      return invalidId(`msgpack type 0x${b.toString(16)}`);
  }
}

/** The integer and float formats: payload size, reader, and the spec's name for messages. */
const NUMBER_FORMATS: Readonly<
  Record<
    number,
    { bytes: number; name: string; read: (v: DataView, at: number) => number | bigint }
  >
> = {
  0xca: { bytes: 4, name: 'float 32', read: (v, at) => v.getFloat32(at) },
  0xcb: { bytes: 8, name: 'float 64', read: (v, at) => v.getFloat64(at) },
  0xcc: { bytes: 1, name: 'uint 8', read: (v, at) => v.getUint8(at) },
  0xcd: { bytes: 2, name: 'uint 16', read: (v, at) => v.getUint16(at) },
  0xce: { bytes: 4, name: 'uint 32', read: (v, at) => v.getUint32(at) },
  0xcf: { bytes: 8, name: 'uint 64', read: (v, at) => v.getBigUint64(at) },
  0xd0: { bytes: 1, name: 'int 8', read: (v, at) => v.getInt8(at) },
  0xd1: { bytes: 2, name: 'int 16', read: (v, at) => v.getInt16(at) },
  0xd2: { bytes: 4, name: 'int 32', read: (v, at) => v.getInt32(at) },
  0xd3: { bytes: 8, name: 'int 64', read: (v, at) => v.getBigInt64(at) },
};

/** A str id: its header starts at `start`, its `length` bytes of text at `at`. */
function stringId(bytes: Uint8Array, start: number, at: number, length: number): IdReading {
  if (bytes.byteLength - at < length) return ABSENT_ID;
  let text: string;
  try {
    text = strictUtf8.decode(bytes.subarray(at, at + length));
  } catch {
    return invalidId(`a string of ${length} bytes that is not valid UTF-8`);
  }
  return readStringId(text, new Uint8Array(bytes.subarray(start, at + length)));
}

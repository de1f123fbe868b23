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
// Along the way it reads the top-level `id` when it can, so a frame refused later still gets an
// error frame naming its request.

import { readId } from './frame-fields.js';
import type { FrameId } from './ws-frames.js';
import { MAX_FRAME_DEPTH } from './ws-protocol.js';

export type ScanResult =
  | { readonly ok: true; readonly id: FrameId | undefined }
  | { readonly ok: false; readonly id: FrameId | undefined; readonly reason: string };

/** One open container: entries still to read, and whether it is a map (keys at even positions). */
interface Open {
  left: number;
  readonly map: boolean;
  readonly root: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

export function scanMsgpack(bytes: Uint8Array): ScanResult {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  const stack: Open[] = [];
  let at = 0;
  let id: FrameId | undefined;
  // Set when the root map's key just read was "id": the next value is the id.
  let nextIsId = false;
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

    // Fixed-size scalars and positive/negative fixints.
    if (b <= 0x7f || b >= 0xe0) {
      if (isId) id = readId(b <= 0x7f ? b : b - 0x100);
      continue;
    }
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
          if (isId && need(8)) {
            const v = b === 0xcb ? view.getFloat64(at) : Number(view.getBigUint64(at));
            id = readId(b === 0xd3 ? Number(view.getBigInt64(at)) : v);
          }
          skip = 8;
          break;
        case 0xcc:
        case 0xd0:
          if (isId && need(1)) id = readId(b === 0xcc ? view.getUint8(at) : view.getInt8(at));
          skip = 1;
          break;
        case 0xcd:
        case 0xd1:
          if (isId && need(2)) id = readId(b === 0xcd ? view.getUint16(at) : view.getInt16(at));
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
    if (b === 0xce && isId && need(4)) id = readId(view.getUint32(at));
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
    if (str && (isKey || isId)) {
      const text = utf8.decode(bytes.subarray(at, at + skip));
      if (isKey && top?.root === true && text === 'id') nextIsId = true;
      if (isId) id = readId(text);
    }
    at += skip;
  }
  if (at !== end) return failed(`${end - at} bytes follow the end of the frame`);
  return { ok: true, id };
}

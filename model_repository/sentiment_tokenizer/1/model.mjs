// The tokenizer step of the `sentiment` ensemble, a JavaScript model: BERT-style WordPiece over the
// vocabulary in ../vocab.txt (one token per line; the line number is the id). Text is lower-cased,
// accents are stripped, it is split on whitespace and around punctuation, and each word is cut
// into the longest vocabulary pieces from the left (continuations spelled `##piece`); a word that
// cannot be cut is [UNK]. One request's text becomes its row of token ids; texts of one batch may
// have different lengths, since each request gets its own response.

import { readFileSync } from 'node:fs';
import path from 'node:path';

const MAX_WORD_CHARS = 100;
let ids = new Map();
let unk = 1;
let maxTokens = 128;

export function initialize(args) {
  const vocab = readFileSync(path.join(args.model_repository, 'vocab.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  ids = new Map(vocab.map((token, id) => [token, id]));
  unk = ids.get('[UNK]') ?? 1;
  const max = args.model_config.parameters?.max_tokens?.string_value;
  if (max !== undefined) maxTokens = Number(max);
}

/** Lower-cased, accents stripped, split on whitespace and around punctuation. */
function basicTokens(text) {
  const plain = text.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
  return plain.split(/\s+/u).flatMap((w) => w.split(/([\p{P}\p{S}])/u)).filter((w) => w !== '');
}

/** Greedy longest-match-first WordPiece. */
function wordPieces(word) {
  if (word.length > MAX_WORD_CHARS) return [unk];
  const pieces = [];
  let start = 0;
  while (start < word.length) {
    let end = word.length;
    let id;
    while (end > start) {
      const piece = (start > 0 ? '##' : '') + word.slice(start, end);
      id = ids.get(piece);
      if (id !== undefined) break;
      end -= 1;
    }
    if (id === undefined) return [unk];
    pieces.push(id);
    start = end;
  }
  return pieces;
}

export function tokenize(text) {
  return basicTokens(text).flatMap(wordPieces).slice(0, maxTokens);
}

export function execute(requests) {
  return requests.map((request) => {
    const texts = request.inputs.TEXT.strings; // one text per row (BYTES [rows, 1])
    if (texts.length !== 1) {
      return new Error(`expected one text per request, got ${texts.length}`);
    }
    const tokens = tokenize(texts[0]);
    if (tokens.length === 0) return new Error('the text has no tokens');
    return {
      outputs: {
        INPUT_IDS: { shape: [1, tokens.length], data: BigInt64Array.from(tokens, BigInt) },
      },
    };
  });
}

// The text of `infernode --help`: the usage lines, the validate command, and one line per flag of
// the flag table, in its order.

import { FLAGS } from './flag-table.js';

export function helpText(): string {
  const rows = Object.entries(FLAGS).map(([n, f]) => `  --${n.padEnd(30)} ${f.help}`);
  return (
    'Usage: infernode --model-repository=<path> [flags]\n' +
    '       infernode validate --model-repository=<dir> --model=<name> --candidate=<version|file.onnx> [...]\n\n' +
    'Commands:\n' +
    '  validate                         Check a candidate model version against the serving one\n' +
    '                                   (signature, output agreement, latency); exit 0 pass, 1 fail,\n' +
    '                                   2 usage; `infernode validate --help` lists its flags\n\n' +
    `Flags:\n${rows.join('\n')}\n`
  );
}

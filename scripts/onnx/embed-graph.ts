// Embedding a foreign ONNX graph inside a generated one: every name it defines or uses, in its own
// body and in the subgraphs of its control-flow nodes (If, Loop, Scan), gets one prefix, so the
// wrapper can pick its own input and output names without clashing and can wire tensors into the
// embedded graph by the prefixed names. Prefixing every name alike keeps the subgraphs' references
// to outer-scope values resolving exactly as before.

import type onnxProto from 'onnx-proto';

type Graph = onnxProto.onnx.IGraphProto;
type Node = onnxProto.onnx.INodeProto;

/** The embedded graph's parts, renamed: the caller lays them out inside its own graph. */
export interface EmbeddedGraph {
  readonly nodes: Node[];
  readonly initializers: onnxProto.onnx.ITensorProto[];
  readonly valueInfo: onnxProto.onnx.IValueInfoProto[];
  /** The prefixed names of the original graph's inputs and outputs, in their order. */
  readonly inputs: string[];
  readonly outputs: string[];
}

/** `prefix + name`; the empty name (an omitted optional input) stays empty. */
function renamer(prefix: string): (name: string | null | undefined) => string {
  return (name) => (name === null || name === undefined || name === '' ? '' : prefix + name);
}

function prefixNode(n: Node, rename: (name: string) => string, prefix: string): Node {
  return {
    ...n,
    name: rename(n.name ?? ''),
    input: (n.input ?? []).map(rename),
    output: (n.output ?? []).map(rename),
    attribute: (n.attribute ?? []).map((a) => ({
      ...a,
      ...(a.g ? { g: prefixGraph(a.g, prefix) } : {}),
      ...(a.graphs && a.graphs.length > 0
        ? { graphs: a.graphs.map((g) => prefixGraph(g, prefix)) }
        : {}),
    })),
  };
}

/** A copy of `graph` with every node, value and initializer name prefixed, subgraphs included. */
export function prefixGraph(graph: Graph, prefix: string): Graph {
  const rename = renamer(prefix);
  if ((graph.sparseInitializer ?? []).length > 0) {
    throw new Error(`graph ${graph.name}: sparse initializers are not supported by prefixGraph`);
  }
  return {
    ...graph,
    node: (graph.node ?? []).map((n) => prefixNode(n, rename, prefix)),
    input: (graph.input ?? []).map((v) => ({ ...v, name: rename(v.name) })),
    output: (graph.output ?? []).map((v) => ({ ...v, name: rename(v.name) })),
    valueInfo: (graph.valueInfo ?? []).map((v) => ({ ...v, name: rename(v.name) })),
    initializer: (graph.initializer ?? []).map((t) => ({ ...t, name: rename(t.name) })),
  };
}

/** `graph`'s parts under `prefix`, ready to lay out inside another graph. */
export function embedGraph(graph: Graph, prefix: string): EmbeddedGraph {
  const renamed = prefixGraph(graph, prefix);
  return {
    nodes: renamed.node ?? [],
    initializers: renamed.initializer ?? [],
    valueInfo: renamed.valueInfo ?? [],
    inputs: (renamed.input ?? []).map((v) => v.name ?? ''),
    outputs: (renamed.output ?? []).map((v) => v.name ?? ''),
  };
}

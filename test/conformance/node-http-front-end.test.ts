// Runs the FrontEnd conformance suite against the node:http adapter.

import { NodeHttpFrontEnd } from '../../src/http/node/node-http-front-end.js';
import { runFrontEndConformance } from './front-end.conformance.js';

runFrontEndConformance({
  name: 'node:http',
  create: (options) => new NodeHttpFrontEnd(options),
  // node's parser refusals go through the adapter's clientError hook, which answers 400.
  parserRefusal: '400',
  // llhttp refuses it; the adapter takes the socket over and serves it (node-framing-takeover.ts).
  bothFramingHeaders: 'served',
  // node:http queues pipelined requests' replies and writes them in order.
  asyncPipelining: 'in-order',
  // llhttp de-chunks strictly; a body it refuses mid-read is answered 400 by the adapter.
  chunkedBodies: 'served',
});

// Imported for its side effect, before any test creates an ONNX Runtime session: turns ONNX
// Runtime's own telemetry off for the test process, its worker threads and the servers it spawns
// (they inherit the environment), exactly as the server does at start (src/cli/ort-telemetry.ts,
// which says why). A value already set (to test telemetry on purpose) is kept.

import { defaultOrtTelemetryOff } from '../../src/cli/ort-telemetry.js';

defaultOrtTelemetryOff();

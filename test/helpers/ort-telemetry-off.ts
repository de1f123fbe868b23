// Imported for its side effect, before any test creates an ONNX Runtime session: turns ONNX
// Runtime's own telemetry off for the test process, its worker threads and the servers it spawns
// (they inherit the environment). onnxruntime-node 1.30's Linux build ships Microsoft's 1DS
// telemetry, on by default outside CI: each process that creates a session leaves an empty
// `mat-debug-<pid>.log` in the temp folder, hundreds per test run. ORT reads the variable when it
// first sets up its environment, so setting it here, at import, is early enough. A value already
// set (to test telemetry on purpose) is kept.

process.env['ORT_DISABLE_TELEMETRY'] ??= '1';

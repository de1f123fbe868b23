// ONNX Runtime's own telemetry, off unless the operator asks for it. onnxruntime-node's Linux build
// (1.30) ships Microsoft's 1DS telemetry, on by default outside CI: every process that creates a
// session writes `mat-debug-<pid>.log` into the temp folder, keeps a cache under
// ~/.cache/Microsoft/DeveloperTools/, and is built to send usage events. A model server should
// not talk to anyone its operator did not configure (Triton sends nothing), so infernode sets
// ORT_DISABLE_TELEMETRY=1 before any session exists. ORT reads it with getenv() when it sets up
// its environment (the first session of the process, on whichever thread), and setting
// process.env on the main thread sets the process's own environment, which worker threads share
// natively. A value the operator already set is left as it is.

export const ORT_TELEMETRY_VARIABLE = 'ORT_DISABLE_TELEMETRY';

/** Turns ONNX Runtime's telemetry off for this process unless the environment already says. */
export function defaultOrtTelemetryOff(env: NodeJS.ProcessEnv = process.env): void {
  env[ORT_TELEMETRY_VARIABLE] ??= '1';
}

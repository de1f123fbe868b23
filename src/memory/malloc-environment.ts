// The environment glibc's malloc is given wherever infernode is deployed: `npm start`, the systemd
// unit (deploy/systemd/infernode.service) and the Kubernetes manifests (deploy/kubernetes) all set
// it, and the hostile-client tests and bench start the server with it.
//
// Why: glibc serves an allocation of 128 KiB or more with its own mmap, returned to the system on
// free, but after the first such block is freed it raises that threshold to the block's size (up
// to 32 MiB), so every later tensor-sized buffer (request frames, answers, a worker's outputs) is
// carved from the heap arenas instead, and freeing them leaves the arenas fragmented and resident.
// Setting the threshold explicitly turns the raising off. With four never-reading WebSockets
// (bench/hostile-clients.ts), 10 s after they went the server held +69 (uWS) to +204 MiB
// (node:http) over its start instead of +312 to +345 MiB (docs/operations.md, "glibc's malloc").
//
// glibc reads it once, before the first allocation, so it has to be in the process's environment
// when it starts: the server cannot set it for itself.

/** glibc malloc's variables and the values infernode is deployed with. */
export const DEPLOYED_MALLOC_ENV: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_MMAP_THRESHOLD_: '131072',
});

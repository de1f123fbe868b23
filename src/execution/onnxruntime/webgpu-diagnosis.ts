// Why a WebGPU session could not be created, in words an operator can act on. ORT's own message
// ("Failed to get a WebGPU adapter: No supported adapters") is the same whether the Vulkan loader,
// the GPU driver's Vulkan part, or the device itself is missing; this looks at the host, in that
// order (the order Dawn needs them), and names the first thing missing and how to install it.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What the diagnosis reads from the host; tests pass their own. */
export interface HostProbe {
  readonly env: Readonly<Record<string, string | undefined>>;
  exists(file: string): boolean;
  /** The entries of a directory; [] when it cannot be read. */
  list(dir: string): readonly string[];
  /** A file's text; undefined when it cannot be read. */
  read(file: string): string | undefined;
}

export const HOST: HostProbe = {
  env: process.env,
  exists: existsSync,
  list: (dir) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
  read: (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
};

const LOADER = 'libvulkan.so.1';

/** Where the dynamic linker looks, roughly as ld.so does: LD_LIBRARY_PATH, ld.so.conf, defaults. */
function libraryDirs(probe: HostProbe): string[] {
  const dirs = (probe.env.LD_LIBRARY_PATH ?? '').split(':').filter((d) => d !== '');
  const confs = [
    '/etc/ld.so.conf',
    ...probe.list('/etc/ld.so.conf.d').map((f) => `/etc/ld.so.conf.d/${f}`),
  ];
  for (const conf of confs) {
    for (const line of (probe.read(conf) ?? '').split('\n')) {
      const dir = line.trim();
      if (dir.startsWith('/')) dirs.push(dir);
    }
  }
  const triplet = process.arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
  dirs.push(`/lib/${triplet}`, `/usr/lib/${triplet}`, '/lib64', '/usr/lib64', '/lib', '/usr/lib');
  return dirs;
}

/** Vulkan driver manifests (ICDs) the loader would find, as the Vulkan loader searches for them. */
function driverManifests(probe: HostProbe): string[] {
  const named = probe.env.VK_DRIVER_FILES ?? probe.env.VK_ICD_FILENAMES;
  if (named !== undefined && named !== '') {
    return named.split(':').filter((f) => f !== '' && probe.exists(f));
  }
  const config = (probe.env.XDG_CONFIG_DIRS ?? '/etc/xdg').split(':');
  const data = (probe.env.XDG_DATA_DIRS ?? '/usr/local/share:/usr/share').split(':');
  const home = probe.env.HOME ?? os.homedir();
  const dirs = [
    ...config.map((d) => path.join(d, 'vulkan/icd.d')),
    '/etc/vulkan/icd.d',
    ...data.map((d) => path.join(d, 'vulkan/icd.d')),
    path.join(home, '.local/share/vulkan/icd.d'),
  ];
  return dirs.flatMap((d) => probe.list(d).filter((f) => f.endsWith('.json')));
}

/** GPU device nodes this process can see: NVIDIA's, or any DRM render node. */
function gpuDeviceNodes(probe: HostProbe): string[] {
  const nvidia = probe.list('/dev').filter((f) => /^nvidia\d+$/.test(f));
  const render = probe.list('/dev/dri').filter((f) => f.startsWith('renderD'));
  return [...nvidia, ...render];
}

/** The first thing WebGPU needs that this host lacks, and how to get it. */
export function diagnoseWebGpu(probe: HostProbe = HOST): string {
  if (!libraryDirs(probe).some((d) => probe.exists(path.join(d, LOADER)))) {
    return (
      `the Vulkan loader (${LOADER}) is not installed: install it (Debian/Ubuntu: ` +
      `apt-get install libvulkan1; Fedora/RHEL: dnf install vulkan-loader), in the image too ` +
      `when infernode runs in a container`
    );
  }
  if (driverManifests(probe).length === 0) {
    return (
      `no Vulkan driver is installed (no ICD manifest in /usr/share/vulkan/icd.d, /etc/vulkan/icd.d ` +
      `or VK_DRIVER_FILES): NVIDIA's comes with the driver (nvidia_icd.json); in a container the ` +
      `NVIDIA runtime mounts it only when NVIDIA_DRIVER_CAPABILITIES includes graphics ` +
      `(compute,utility,graphics)`
    );
  }
  if (gpuDeviceNodes(probe).length === 0) {
    return (
      `no GPU device is visible to this process (no /dev/nvidia<N> or /dev/dri/renderD*): under ` +
      `systemd install the GPU drop-in (deploy/systemd/infernode-gpu.conf); in Kubernetes request ` +
      `nvidia.com/gpu`
    );
  }
  return (
    `the Vulkan loader, a Vulkan driver and a GPU device are present, yet WebGPU found no adapter: ` +
    `check the driver with vulkaninfo --summary (package vulkan-tools)`
  );
}

/**
 * A message for a failed WebGPU session: the diagnosis when ORT's error is WebGPU finding no
 * adapter (or failing to start), else undefined (the error is about the model, not the host).
 */
export function explainWebGpuFailure(message: string, probe: HostProbe = HOST): string | undefined {
  if (!/webgpu adapter|no supported adapters|webgpu_context|dawn/i.test(message)) return undefined;
  return `WebGPU found no GPU adapter: ${diagnoseWebGpu(probe)}`;
}

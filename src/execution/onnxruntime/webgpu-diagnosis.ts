// Why a WebGPU session could not be created, in words an operator can act on. ORT's own message
// ("Failed to get a WebGPU adapter: No supported adapters") is the same whether the Vulkan loader,
// the GPU driver's Vulkan part (its manifest, its library and what that needs), or the device
// itself is missing; this looks at the host, in that order (the order Dawn needs them), and names
// the first thing missing and how to install it.

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
  return dirs.flatMap((d) =>
    probe
      .list(d)
      .filter((f) => f.endsWith('.json'))
      .map((f) => path.join(d, f)),
  );
}

/** The driver library a manifest names (`ICD.library_path`), or undefined when unreadable. */
function driverLibrary(probe: HostProbe, manifest: string): string | undefined {
  try {
    const json = JSON.parse(probe.read(manifest) ?? '') as { ICD?: { library_path?: unknown } };
    const lib = json.ICD?.library_path;
    return typeof lib === 'string' && lib !== '' ? lib : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the dynamic linker would find `lib` (a bare name in its folders, or a path). */
function libraryFound(probe: HostProbe, lib: string): boolean {
  if (lib.includes('/')) return probe.exists(lib);
  return libraryDirs(probe).some((d) => probe.exists(path.join(d, lib)));
}

/**
 * What the drivers' libraries lack, or undefined when one driver has what it needs. NVIDIA's
 * Vulkan driver lives in its GL library (libGLX_nvidia.so.0), which loads only beside libglvnd's
 * dispatch library: a host with the driver and the Vulkan loader but no libglvnd finds no adapter.
 */
function driverLibraryProblem(probe: HostProbe, manifests: readonly string[]): string | undefined {
  const problems: string[] = [];
  for (const manifest of manifests) {
    const lib = driverLibrary(probe, manifest);
    if (lib === undefined) return undefined; // cannot tell: let the last step speak
    if (!libraryFound(probe, lib)) {
      problems.push(
        `the Vulkan driver library ${lib} (named by ${path.basename(manifest)}) is not installed`,
      );
    } else if (/^lib(GLX|EGL)_nvidia\.so/.test(path.basename(lib))) {
      if (!libraryFound(probe, 'libGLdispatch.so.0')) {
        problems.push(
          `NVIDIA's Vulkan driver (${path.basename(lib)}) needs libglvnd, which is not installed: ` +
            `install it (Debian/Ubuntu: apt-get install libglvnd0 libglx0 libegl1; Fedora/RHEL: ` +
            `dnf install libglvnd-glx libglvnd-egl)`,
        );
      } else {
        return undefined;
      }
    } else {
      return undefined;
    }
  }
  return problems[0];
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
  const manifests = driverManifests(probe);
  if (manifests.length === 0) {
    return (
      `no Vulkan driver is installed (no ICD manifest in /usr/share/vulkan/icd.d, /etc/vulkan/icd.d ` +
      `or VK_DRIVER_FILES): NVIDIA's comes with the driver (nvidia_icd.json); in a container the ` +
      `NVIDIA runtime mounts it only when NVIDIA_DRIVER_CAPABILITIES includes graphics ` +
      `(compute,utility,graphics)`
    );
  }
  const library = driverLibraryProblem(probe, manifests);
  if (library !== undefined) return library;
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

// What a failed WebGPU session is blamed on: the first missing piece of loader, driver, device.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  diagnoseWebGpu,
  explainWebGpuFailure,
  type HostProbe,
} from '../../../src/execution/onnxruntime/webgpu-diagnosis.js';

/** A host made of the given files (directories are implied by them). */
function host(
  files: readonly string[],
  env: Record<string, string> = {},
  texts: Record<string, string> = {},
): HostProbe {
  return {
    env: { HOME: '/home/u', ...env },
    exists: (f) => files.includes(f),
    list: (dir) =>
      files
        .filter((f) => f.startsWith(`${dir}/`) && !f.slice(dir.length + 1).includes('/'))
        .map((f) => f.slice(dir.length + 1)),
    read: (f) => texts[f],
  };
}

const LOADER = '/usr/lib/x86_64-linux-gnu/libvulkan.so.1';
const ICD = '/usr/share/vulkan/icd.d/nvidia_icd.json';
const DEVICE = '/dev/nvidia0';
const ADAPTER_ERROR =
  '/onnxruntime_src/onnxruntime/core/providers/webgpu/webgpu_context.cc:136 ... Failed to get a ' +
  'WebGPU adapter: No supported adapters';

void describe('WebGPU diagnosis', () => {
  void it('no loader: names libvulkan1', () => {
    assert.match(
      diagnoseWebGpu(host([ICD, DEVICE])),
      /libvulkan\.so\.1\) is not installed.*apt-get install libvulkan1/,
    );
  });

  void it('a loader on LD_LIBRARY_PATH counts', () => {
    const h = host(['/opt/vk/libvulkan.so.1', ICD, DEVICE], { LD_LIBRARY_PATH: '/opt/vk' });
    assert.match(diagnoseWebGpu(h), /vulkaninfo/);
  });

  void it('no driver manifest: names the graphics capability', () => {
    assert.match(
      diagnoseWebGpu(host([LOADER, DEVICE])),
      /no Vulkan driver.*NVIDIA_DRIVER_CAPABILITIES includes graphics/,
    );
  });

  void it('VK_DRIVER_FILES decides when set', () => {
    const named = '/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json';
    assert.match(
      diagnoseWebGpu(host([LOADER, DEVICE], { VK_DRIVER_FILES: '/nowhere.json' })),
      /no Vulkan driver/,
    );
    assert.match(
      diagnoseWebGpu(host([LOADER, DEVICE, named], { VK_DRIVER_FILES: named })),
      /vulkaninfo/,
    );
  });

  void it('no device node: names the systemd drop-in and the Kubernetes resource', () => {
    assert.match(
      diagnoseWebGpu(host([LOADER, ICD])),
      /no GPU device is visible.*infernode-gpu\.conf.*nvidia\.com\/gpu/,
    );
    assert.match(diagnoseWebGpu(host([LOADER, ICD, '/dev/dri/renderD128'])), /vulkaninfo/);
  });

  void it("NVIDIA's driver library without libglvnd: names libglvnd0 (seen on an H200 host)", () => {
    const icd = {
      [ICD]: '{"file_format_version":"1.0.1","ICD":{"library_path":"libGLX_nvidia.so.0"}}',
    };
    const lib = '/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.0';
    const dispatch = '/usr/lib/x86_64-linux-gnu/libGLdispatch.so.0';
    assert.match(
      diagnoseWebGpu(host([LOADER, ICD, DEVICE, lib], {}, icd)),
      /NVIDIA's Vulkan driver \(libGLX_nvidia\.so\.0\) needs libglvnd.*apt-get install libglvnd0/,
    );
    assert.match(
      diagnoseWebGpu(host([LOADER, ICD, DEVICE], {}, icd)),
      /the Vulkan driver library libGLX_nvidia\.so\.0 \(named by nvidia_icd\.json\) is not installed/,
    );
    assert.match(diagnoseWebGpu(host([LOADER, ICD, DEVICE, lib, dispatch], {}, icd)), /vulkaninfo/);
  });

  void it('explains adapter failures only', () => {
    assert.match(
      explainWebGpuFailure(ADAPTER_ERROR, host([])) ?? '',
      /^WebGPU found no GPU adapter: the Vulkan loader/,
    );
    assert.equal(
      explainWebGpuFailure(
        'Load model from m/1/model.onnx failed: Protobuf parsing failed',
        host([]),
      ),
      undefined,
    );
  });
});

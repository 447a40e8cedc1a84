//===- host_launch.cpp - The host-launch ABI and its CPU wrapper ----------===//
//
// sluice_rt_launch_* (launch/host_launch.h) forward to the wrapper of the
// launch's backend. The CPU wrapper lays the operands out as the argument
// record of convert-gpu-to-cpu's block functions: the operands in their LLVM
// types, each at its natural alignment (a memref is the descriptor struct
// {ptr allocated, ptr aligned, i64 offset, i64 sizes[rank], i64
// strides[rank]}), then the grid and block sizes as six i64; end runs the
// grid's blocks with sluice_rt_launch_blocks. The HIP wrapper is the
// sluice_rt_hip_launch_* family (hip_launch.h). The Vulkan wrapper is the
// sluice_rt_vk_launch_* family (vulkan_launch.h), which also keeps the
// resident device copies that sluice_rt_host_access brings back; the CPU
// runs on host memory and has none.
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/launch/host_launch.h"

#include "sluice/runtime/exit_codes.h"
#include "sluice/runtime/launch/launch.h"
#include "sluice/runtime/device/hip/hip_launch.h"
#include "sluice/runtime/device/vulkan/vulkan_launch.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace sluice::runtime;

[[noreturn]] void misuse(const std::string &message) {
  std::fprintf(stderr, "sluice: launch: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(kExitBadInput);
}

/// The argument record of a CPU block function, in 8-byte aligned storage.
class CpuRecord {
public:
  void clear() { bytes_ = 0; }
  void put(const void *data, uint64_t size, uint64_t align) {
    uint64_t offset = (bytes_ + align - 1) / align * align;
    bytes_ = offset + size;
    words_.resize((bytes_ + 7) / 8);
    std::memcpy(reinterpret_cast<unsigned char *>(words_.data()) + offset, data,
                size);
  }
  void putWord(uint64_t word) { put(&word, 8, 8); }
  void *data() { return words_.data(); }

private:
  uint64_t bytes_ = 0;
  std::vector<uint64_t> words_;
};

/// A memref operand whose dimensions are still arriving.
struct PendingMemRef {
  void *aligned = nullptr;
  int64_t offset = 0;
  uint64_t rank = 0, elementBytes = 0, access = 0;
  std::vector<int64_t> sizes, strides;
};

struct Launch {
  bool active = false;
  uint32_t backend = 0;
  std::string kernel;
  bool memrefPending = false;
  PendingMemRef memref;
  // CPU
  sluice_rt_block_fn blockFunction = nullptr;
  uint32_t workers = 0;
  CpuRecord record;
};

thread_local Launch current;

Launch &active(const char *call, bool dimension = false) {
  if (!current.active)
    misuse(std::string(call) + " called without sluice_rt_launch_begin");
  if (current.memrefPending != dimension)
    misuse(std::string(call) + " for @" + current.kernel +
           (dimension ? " without a memref operand whose dimensions it gives"
                      : " before every dimension of the memref operand was "
                        "given"));
  return current;
}

/// Passes the completed memref operand to the backend.
void passMemRef(Launch &launch) {
  PendingMemRef &m = launch.memref;
  launch.memrefPending = false;
  if (launch.backend == SLUICE_LAUNCH_CPU) {
    uint64_t pointer = reinterpret_cast<uintptr_t>(m.aligned);
    launch.record.putWord(pointer); // allocated: the kernel never frees it
    launch.record.putWord(pointer);
    launch.record.putWord(uint64_t(m.offset));
    for (int64_t size : m.sizes)
      launch.record.putWord(uint64_t(size));
    for (int64_t stride : m.strides)
      launch.record.putWord(uint64_t(stride));
    return;
  }
  // Vulkan and HIP: the identity-layout elements as one buffer.
  uint64_t bytes = m.elementBytes;
  for (int64_t size : m.sizes)
    bytes *= uint64_t(size);
  char *data = static_cast<char *>(m.aligned) + m.offset * int64_t(m.elementBytes);
  if (launch.backend == SLUICE_LAUNCH_HIP)
    return sluice_rt_hip_launch_memref(data, bytes, m.access, m.rank,
                                       m.sizes.data());
  sluice_rt_vk_launch_arg(data, bytes, m.access & SLUICE_LAUNCH_ACCESS_MASK);
}

} // namespace

extern "C" {

void sluice_rt_launch_begin(uint32_t backend, const void *handle,
                            uint64_t handle_bytes, const char *kernel) {
  if (current.active)
    misuse("sluice_rt_launch_begin for @" + std::string(kernel ? kernel : "") +
           " while the launch of @" + current.kernel + " is not ended");
  if (!handle || !kernel)
    misuse("sluice_rt_launch_begin with a null kernel handle or name");
  current.memrefPending = false;
  current.workers = 0;
  current.record.clear();
  current.active = true;
  current.backend = backend;
  current.kernel = kernel;
  switch (backend) {
  case SLUICE_LAUNCH_CPU:
    current.blockFunction = reinterpret_cast<sluice_rt_block_fn>(
        const_cast<void *>(handle));
    return;
  case SLUICE_LAUNCH_VULKAN:
    if (handle_bytes % 4 != 0)
      misuse("kernel @" + current.kernel + ": a SPIR-V module of " +
             std::to_string(handle_bytes) + " bytes is not whole words");
    sluice_rt_vk_launch_begin(static_cast<const uint32_t *>(handle),
                              handle_bytes / 4, kernel);
    return;
  case SLUICE_LAUNCH_HIP:
    sluice_rt_hip_launch_begin(static_cast<const char *>(handle), handle_bytes,
                               kernel);
    return;
  default:
    misuse("kernel @" + current.kernel + ": unknown launch backend " +
           std::to_string(backend));
  }
}

void sluice_rt_launch_workers(uint32_t workers) {
  active("sluice_rt_launch_workers").workers = workers;
}

void sluice_rt_launch_workgroup_memory(uint64_t bytes) {
  // The CPU takes workgroup memory from the worker's arena, which grows.
  uint32_t backend = active("sluice_rt_launch_workgroup_memory").backend;
  if (backend == SLUICE_LAUNCH_VULKAN)
    sluice_rt_vk_launch_workgroup_memory(bytes);
  else if (backend == SLUICE_LAUNCH_HIP)
    sluice_rt_hip_launch_workgroup_memory(bytes);
}

void sluice_rt_launch_memref(void *aligned, int64_t offset, uint64_t rank,
                             uint64_t element_bytes, uint64_t access) {
  Launch &launch = active("sluice_rt_launch_memref");
  launch.memref = PendingMemRef{aligned, offset, rank, element_bytes, access,
                                {}, {}};
  launch.memrefPending = true;
  if (rank == 0)
    passMemRef(launch);
}

void sluice_rt_launch_memref_dim(int64_t size, int64_t stride) {
  Launch &launch = active("sluice_rt_launch_memref_dim", /*dimension=*/true);
  launch.memref.sizes.push_back(size);
  launch.memref.strides.push_back(stride);
  if (launch.memref.sizes.size() == launch.memref.rank)
    passMemRef(launch);
}

void sluice_rt_launch_scalar(uint64_t value, uint64_t bytes) {
  Launch &launch = active("sluice_rt_launch_scalar");
  if (launch.backend == SLUICE_LAUNCH_VULKAN)
    return sluice_rt_vk_launch_scalar(value, bytes);
  if (launch.backend == SLUICE_LAUNCH_HIP)
    return sluice_rt_hip_launch_scalar(value, bytes);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
    misuse("kernel @" + launch.kernel + ": a scalar of " +
           std::to_string(bytes) + " bytes");
  launch.record.put(&value, bytes, bytes); // little-endian low bytes
}

void sluice_rt_launch_scratch(uint64_t bytes_per_invocation) {
  Launch &launch = active("sluice_rt_launch_scratch");
  if (launch.backend != SLUICE_LAUNCH_VULKAN)
    misuse("kernel @" + launch.kernel +
           ": scratch buffers exist on the Vulkan backend only");
  sluice_rt_vk_launch_scratch(bytes_per_invocation);
}

void sluice_rt_launch_end(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx,
                          uint64_t by, uint64_t bz) {
  Launch &launch = active("sluice_rt_launch_end");
  launch.active = false;
  if (launch.backend == SLUICE_LAUNCH_VULKAN)
    return sluice_rt_vk_launch_end(gx, gy, gz, bx, by, bz);
  if (launch.backend == SLUICE_LAUNCH_HIP)
    return sluice_rt_hip_launch_end(gx, gy, gz, bx, by, bz);
  for (uint64_t size : {gx, gy, gz, bx, by, bz})
    launch.record.putWord(size);
  unsigned __int128 blocks = (unsigned __int128)gx * gy * gz;
  if (blocks >> 64)
    misuse("kernel @" + launch.kernel + ": a grid of " + std::to_string(gx) +
           " x " + std::to_string(gy) + " x " + std::to_string(gz) +
           " blocks overflows 64 bits");
  sluice_rt_launch_blocks(launch.blockFunction, launch.record.data(),
                          uint64_t(blocks), launch.workers);
}

void sluice_rt_host_access(void *data, uint64_t bytes, uint64_t access) {
  if (current.active)
    misuse("sluice_rt_host_access during the launch of @" + current.kernel +
           " (between sluice_rt_launch_begin and sluice_rt_launch_end)");
  if (access & ~uint64_t(SLUICE_HOST_READ | SLUICE_HOST_WRITE |
                         SLUICE_HOST_FREE) ||
      access == 0 ||
      ((access & SLUICE_HOST_FREE) && access != SLUICE_HOST_FREE))
    misuse("sluice_rt_host_access with access " + std::to_string(access) +
           "; expected SLUICE_HOST_READ (1), SLUICE_HOST_WRITE (2), both, or "
           "SLUICE_HOST_FREE (4) alone");
  sluice_rt_vk_host_access(data, bytes, access);
  sluice_rt_hip_host_access(data, bytes, access);
}

void sluice_rt_synchronize(void) {
  if (current.active)
    misuse("sluice_rt_synchronize during the launch of @" + current.kernel +
           " (between sluice_rt_launch_begin and sluice_rt_launch_end)");
  sluice_rt_vk_synchronize();
  sluice_rt_hip_synchronize();
}

} // extern "C"

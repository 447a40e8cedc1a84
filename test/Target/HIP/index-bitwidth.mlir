// sluice-gpu-to-hip-emitc{index-bitwidth=32}: `index` is int32_t inside a
// kernel, as on SPIR-V, while the kernel's index parameters (its own, and a
// memref's dynamic dimensions) stay int64_t, the HIP ABI's, narrowed once at
// its entry. Thread ids, index constants and the index values an scf.while
// carries are 32-bit; an index constant that does not fit is refused at the
// op (index-bitwidth-invalid.mlir), and a width other than 32 or 64 at the
// module.
// RUN: sluice-opt --pass-pipeline="builtin.module(sluice-gpu-to-hip-emitc{index-bitwidth=32})" %s | sluice-translate --sluice-to-hip | FileCheck %s
// RUN: sluice-opt --pass-pipeline="builtin.module(sluice-gpu-to-hip-emitc)" %s | sluice-translate --sluice-to-hip | FileCheck %s --check-prefix=WIDE
// RUN: not sluice-opt --pass-pipeline="builtin.module(sluice-gpu-to-hip-emitc{index-bitwidth=16})" %s 2>&1 | FileCheck %s --check-prefix=WIDTH

// WIDTH: error: sluice-gpu-to-hip-emitc: index-bitwidth must be 32 or 64, not 16

module attributes {gpu.container_module} {
  gpu.module @narrow {
    // CHECK: __global__ void narrow_steps(int32_t* [[OUT:v[0-9]+]], int64_t [[DIM:v[0-9]+]], int64_t [[N:v[0-9]+]]) {
    // CHECK: int32_t [[N32:v[0-9]+]] = (int32_t) {{v[0-9]+}};
    // CHECK: int32_t [[THREE:v[0-9]+]] = 3;
    // CHECK: int32_t {{v[0-9]+}} = (int32_t) blockIdx.x;
    // CHECK: int32_t {{v[0-9]+}} = (int32_t) threadIdx.x;
    // CHECK: uint32_t {{v[0-9]+}} = (uint32_t) [[N32]];
    // CHECK: do {
    // CHECK: int32_t [[K:v[0-9]+]] = {{v[0-9]+}};
    // CHECK: uint32_t {{v[0-9]+}} = {{v[0-9]+}} / {{v[0-9]+}};
    // CHECK: } while
    // WIDE: __global__ void narrow_steps(int32_t* {{v[0-9]+}}, int64_t {{v[0-9]+}}, int64_t {{v[0-9]+}}) {
    // WIDE: int64_t {{v[0-9]+}} = 3;
    // WIDE: int64_t {{v[0-9]+}} = (int64_t) blockIdx.x;
    // WIDE: uint64_t {{v[0-9]+}} = {{v[0-9]+}} / {{v[0-9]+}};
    gpu.func @steps(%out: memref<?xi32>, %n: index) kernel {
      %c3 = arith.constant 3 : index
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        // Divides by 3 while above 3: the lane's steps, an index the loop
        // carries.
        %r = scf.while (%k = %i) : (index) -> index {
          %go = arith.cmpi ugt, %k, %c3 : index
          scf.condition(%go) %k : index
        } do {
        ^bb0(%k2: index):
          %next = arith.divui %k2, %c3 : index
          scf.yield %next : index
        }
        %v = arith.index_cast %r : index to i32
        memref.store %v, %out[%i] : memref<?xi32>
      }
      gpu.return
    }
  }
}

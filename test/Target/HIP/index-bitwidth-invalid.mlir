// With index-bitwidth=32 an index constant beyond the int32_t range would
// change its value: refused at the constant (index-bitwidth.mlir has the
// rest of the option).
// RUN: sluice-opt --pass-pipeline="builtin.module(sluice-gpu-to-hip-emitc{index-bitwidth=32})" -verify-diagnostics %s

module attributes {gpu.container_module} {
  gpu.module @big {
    gpu.func @offset(%out: memref<?xi64>) kernel {
      // expected-error @below {{index constant 4294967296 does not fit the 32-bit index of index-bitwidth=32}}
      %c = arith.constant 4294967296 : index
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %at = arith.addi %tid, %c : index
      %v = arith.index_cast %at : index to i64
      memref.store %v, %out[%c0] : memref<?xi64>
      gpu.return
    }
  }
}

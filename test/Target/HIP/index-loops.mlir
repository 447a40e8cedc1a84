// An index loop whose bounds are 32-bit values counts in int32_t (the HIP
// ABI's index is int64_t, two instructions per compare and increment on a
// GPU); one whose bound may not fit, or whose increment could overflow,
// keeps int64_t.
// RUN: sluice-translate --sluice-to-hip %s | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @loops {
    // CHECK-LABEL: void loops_bounds(
    gpu.func @bounds(%out: memref<?xi32>, %trips: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c100 = arith.constant 100 : index
      %t32 = memref.load %trips[%c0] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      %n = memref.dim %out, %c0 : memref<?xi32>
      // A bound loaded as i32: int32_t.
      // CHECK: for (int32_t [[I:i[0-9]+]] = {{.*}}; [[I]] < {{.*}}; [[I]] += {{.*}}) {
      scf.for %i = %c0 to %t step %c1 {
        %v = arith.index_cast %i : index to i32
        memref.store %v, %out[%i] : memref<?xi32>
      }
      // Constant bounds with a step of 4: int32_t.
      // CHECK: for (int32_t [[J:i[0-9]+]] = {{.*}}; [[J]] < {{.*}}; [[J]] += {{.*}}) {
      scf.for %j = %c0 to %c100 step %c4 {
        %v = arith.index_cast %j : index to i32
        memref.store %v, %out[%j] : memref<?xi32>
      }
      // A memref's size may exceed INT32_MAX: int64_t.
      // CHECK: for (int64_t [[K:i[0-9]+]] = {{.*}}; [[K]] < {{.*}}; [[K]] += {{.*}}) {
      scf.for %k = %c0 to %n step %c1 {
        %v = arith.index_cast %k : index to i32
        memref.store %v, %out[%k] : memref<?xi32>
      }
      // A 32-bit bound with a step of 4: i + 4 could overflow, int64_t.
      // CHECK: for (int64_t [[L:i[0-9]+]] = {{.*}}; [[L]] < {{.*}}; [[L]] += {{.*}}) {
      scf.for %l = %c0 to %t step %c4 {
        %v = arith.index_cast %l : index to i32
        memref.store %v, %out[%l] : memref<?xi32>
      }
      gpu.return
    }
  }
}

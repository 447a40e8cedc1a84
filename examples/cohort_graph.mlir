// The cohort graph example: a producer with more blocks (50) than cores (4)
// feeds a cohort spanning every core. The cohort's blocks meet at a cross-block
// spin barrier, which only completes when all four blocks run at once; a
// consumer then counts its blocks. @main prints the reduction, the block counts
// of @load and @store, and the number of blocks that arrived at the barrier.
//
//   sluice-opt --sluice-verify examples/cohort_graph.mlir
//   sluice-run examples/cohort_graph.mlir
//
// @load writes data[b] = b * b for b in [0, 50). Each cohort block sums the
// entries i with i mod 4 == block, waits at the barrier, and block 0 adds the
// four partial sums.

memref.global "private" @data : memref<50xi64> = dense<0>
memref.global "private" @partial : memref<4xi64> = dense<0>
memref.global "private" @arrived : memref<1xi64> = dense<0>
memref.global "private" @total : memref<1xi64> = dense<0>
memref.global "private" @load_runs : memref<1xi64> = dense<0>
memref.global "private" @store_runs : memref<1xi64> = dense<0>

func.func private @sluice_print_i64(i64)

func.func @load_kernel(%block: index, %blocks: index) {
  %data = memref.get_global @data : memref<50xi64>
  %runs = memref.get_global @load_runs : memref<1xi64>
  %b = arith.index_cast %block : index to i64
  %square = arith.muli %b, %b : i64
  memref.store %square, %data[%block] : memref<50xi64>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %old = memref.atomic_rmw addi %one, %runs[%c0] : (i64, memref<1xi64>) -> i64
  return
}

func.func @reduce_kernel(%block: index, %blocks: index) {
  %data = memref.get_global @data : memref<50xi64>
  %partial = memref.get_global @partial : memref<4xi64>
  %arrived = memref.get_global @arrived : memref<1xi64>
  %c0 = arith.constant 0 : index
  %c50 = arith.constant 50 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %sum = scf.for %i = %block to %c50 step %blocks iter_args(%acc = %zero) -> (i64) {
    %v = memref.load %data[%i] : memref<50xi64>
    %next = arith.addi %acc, %v : i64
    scf.yield %next : i64
  }
  memref.store %sum, %partial[%block] : memref<4xi64>
  // Cross-block barrier: deadlocks unless every block of the cohort is running.
  %n = arith.index_cast %blocks : index to i64
  %before = memref.atomic_rmw addi %one, %arrived[%c0] : (i64, memref<1xi64>) -> i64
  scf.while : () -> () {
    %seen = memref.atomic_rmw addi %zero, %arrived[%c0] : (i64, memref<1xi64>) -> i64
    %waiting = arith.cmpi slt, %seen, %n : i64
    scf.condition(%waiting)
  } do {
    scf.yield
  }
  %is_first = arith.cmpi eq, %block, %c0 : index
  scf.if %is_first {
    %c1 = arith.constant 1 : index
    %all = scf.for %j = %c0 to %blocks step %c1 iter_args(%acc = %zero) -> (i64) {
      %p = memref.load %partial[%j] : memref<4xi64>
      %next = arith.addi %acc, %p : i64
      scf.yield %next : i64
    }
    %total = memref.get_global @total : memref<1xi64>
    memref.store %all, %total[%c0] : memref<1xi64>
  }
  return
}

func.func @store_kernel(%block: index, %blocks: index) {
  %runs = memref.get_global @store_runs : memref<1xi64>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %old = memref.atomic_rmw addi %one, %runs[%c0] : (i64, memref<1xi64>) -> i64
  return
}

cohort.graph @step cores 4 {
  cohort.task @load kernel @load_kernel blocks 50 allow_early_resolve
  cohort.task @reduce kernel @reduce_kernel blocks 4 sync_start
  cohort.task @store kernel @store_kernel blocks 8
  cohort.dependency @load -> @reduce
  cohort.dependency @reduce -> @store
}

func.func @main() {
  cohort.launch @step
  %c0 = arith.constant 0 : index
  %total = memref.get_global @total : memref<1xi64>
  %t = memref.load %total[%c0] : memref<1xi64>
  func.call @sluice_print_i64(%t) : (i64) -> ()
  %load_runs = memref.get_global @load_runs : memref<1xi64>
  %l = memref.load %load_runs[%c0] : memref<1xi64>
  func.call @sluice_print_i64(%l) : (i64) -> ()
  %store_runs = memref.get_global @store_runs : memref<1xi64>
  %s = memref.load %store_runs[%c0] : memref<1xi64>
  func.call @sluice_print_i64(%s) : (i64) -> ()
  %arrived = memref.get_global @arrived : memref<1xi64>
  %a = memref.load %arrived[%c0] : memref<1xi64>
  func.call @sluice_print_i64(%a) : (i64) -> ()
  return
}

// RUN: sluice-opt %s --convert-cohort-to-llvm -split-input-file -verify-diagnostics | FileCheck %s

// Kernel names are string constants; each kernel gets an ABI entry wrapper.
// CHECK-DAG: llvm.mlir.global internal constant @__sluice_cohort_name_g_produce("produce\00")
// CHECK-DAG: llvm.mlir.global internal constant @__sluice_cohort_name_g_gather("gather\00")
// CHECK-DAG: llvm.mlir.global internal constant @__sluice_cohort_failure_g("sluice: cohort graph @g failed: %s\0A\00")
// CHECK-LABEL: func.func @k(
// CHECK-LABEL: func.func private @__sluice_cohort_entry_k(
// CHECK-SAME: %[[USER:.*]]: !llvm.ptr, %[[B:.*]]: i64, %[[N:.*]]: i64)
// CHECK: %[[BI:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK: call @k(%[[BI]], %[[NI]]) : (index, index) -> ()
func.func @k(%b: index, %n: index) {
  return
}

// The graph op is gone after lowering.
// CHECK-NOT: cohort.graph
cohort.graph @g cores 3 {
  cohort.task @produce kernel @k blocks 7 allow_early_resolve
  cohort.task @gather kernel @k blocks 3 sync_start
  cohort.dependency @produce -> @gather
}

// CHECK-LABEL: func.func @main()
// CHECK: %[[CORES:.*]] = arith.constant 3 : i32
// CHECK: %[[G:.*]] = call @sluice_cohort_graph_create(%[[CORES]])
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[N1:.*]] = llvm.mlir.addressof @__sluice_cohort_name_g_produce
// CHECK: %[[F1:.*]] = constant @__sluice_cohort_entry_k
// CHECK: %[[B1:.*]] = arith.constant 7 : i64
// Flag 2 = ALLOW_EARLY_RESOLVE.
// CHECK: %[[FL1:.*]] = arith.constant 2 : i32
// CHECK: %[[T1:.*]] = call @sluice_cohort_add_task(%[[G]], %[[N1]], %[[F1]], %[[NULL]], %[[B1]], %[[FL1]])
// CHECK: %[[N2:.*]] = llvm.mlir.addressof @__sluice_cohort_name_g_gather
// CHECK: %[[F2:.*]] = constant @__sluice_cohort_entry_k
// CHECK: %[[B2:.*]] = arith.constant 3 : i64
// Flag 1 = SYNC_START.
// CHECK: %[[FL2:.*]] = arith.constant 1 : i32
// CHECK: %[[T2:.*]] = call @sluice_cohort_add_task(%[[G]], %[[N2]], %[[F2]], %[[NULL]], %[[B2]], %[[FL2]])
// CHECK: call @sluice_cohort_add_dependency(%[[G]], %[[T1]], %[[T2]])
// CHECK: %[[RC:.*]] = call @sluice_cohort_run(%[[G]])
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[RC]]
// CHECK: scf.if %[[FAILED]] {
// CHECK:   %[[MSG:.*]] = func.call @sluice_cohort_last_error(%[[G]])
// CHECK:   llvm.call @dprintf(
// CHECK:   func.call @exit(
// CHECK: }
// CHECK: call @sluice_cohort_graph_destroy(%[[G]])
// CHECK-NOT: cohort.launch
func.func @main() {
  cohort.launch @g
  return
}

// CHECK-DAG: func.func private @sluice_cohort_graph_create(i32) -> !llvm.ptr
// CHECK-DAG: func.func private @sluice_cohort_add_task(!llvm.ptr, !llvm.ptr, (!llvm.ptr, i64, i64) -> (), !llvm.ptr, i64, i32) -> i32
// CHECK-DAG: func.func private @sluice_cohort_run(!llvm.ptr) -> i32
// CHECK-DAG: llvm.func @dprintf(i32, !llvm.ptr, ...) -> i32

// -----

func.func @wrong(%b: i32) {
  return
}
cohort.graph @g cores 2 {
  // expected-error @+1 {{kernel @wrong has type '(i32) -> ()'; the CPU executor calls kernels as (index, index) -> () with the block index and the block count}}
  cohort.task @t kernel @wrong blocks 2
}
func.func @main() {
  cohort.launch @g
  return
}

// -----

func.func private @external(index, index)
cohort.graph @g cores 2 {
  // expected-error @+1 {{kernel @external must be a 'func.func' with a body to lower to the CPU executor}}
  cohort.task @t kernel @external blocks 2
}
func.func @main() {
  cohort.launch @g
  return
}

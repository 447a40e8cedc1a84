// Round trip of every cohort op: custom form, and generic form re-parsed.
// RUN: sluice-opt %s | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | sluice-opt | FileCheck %s
// RUN: sluice-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

func.func @load_kernel() {
  return
}
llvm.func @reduce_kernel() {
  llvm.return
}
gpu.module @kernels {
  gpu.func @shade_kernel() kernel {
    gpu.return
  }
}

// CHECK-LABEL: cohort.graph @step cores 4 {
// CHECK-NEXT:    cohort.task @load kernel @load_kernel blocks 50 allow_early_resolve{{$}}
// CHECK-NEXT:    cohort.task @reduce kernel @reduce_kernel blocks 4 sync_start{{$}}
// CHECK-NEXT:    cohort.task @both kernel @load_kernel blocks 2 sync_start allow_early_resolve{{$}}
// CHECK-NEXT:    cohort.task @shade kernel @kernels::@shade_kernel blocks 1{{$}}
// CHECK-NEXT:    cohort.dependency @load -> @reduce
// CHECK-NEXT:    cohort.dependency @reduce -> @both
// CHECK-NEXT:    cohort.dependency @load -> @shade
// CHECK-NEXT:  }
// GENERIC-LABEL: "cohort.graph"() <{cores = 4 : i64, sym_name = "step"}> ({
// GENERIC-NEXT:    "cohort.task"() <{allow_early_resolve, blocks = 50 : i64, kernel = @load_kernel, sym_name = "load"}> : () -> ()
// GENERIC-NEXT:    "cohort.task"() <{blocks = 4 : i64, kernel = @reduce_kernel, sym_name = "reduce", sync_start}> : () -> ()
// GENERIC-NEXT:    "cohort.task"() <{allow_early_resolve, blocks = 2 : i64, kernel = @load_kernel, sym_name = "both", sync_start}> : () -> ()
// GENERIC-NEXT:    "cohort.task"() <{blocks = 1 : i64, kernel = @kernels::@shade_kernel, sym_name = "shade"}> : () -> ()
// GENERIC-NEXT:    "cohort.dependency"() <{consumer = @reduce, producer = @load}> : () -> ()
cohort.graph @step cores 4 {
  cohort.task @load kernel @load_kernel blocks 50 allow_early_resolve
  cohort.task @reduce kernel @reduce_kernel blocks 4 sync_start
  cohort.task @both kernel @load_kernel blocks 2 sync_start allow_early_resolve
  cohort.task @shade kernel @kernels::@shade_kernel blocks 1
  cohort.dependency @load -> @reduce
  cohort.dependency @reduce -> @both
  cohort.dependency @load -> @shade
}

// A graph may be empty, and carry attributes.
// CHECK-LABEL: cohort.graph @idle cores 1 attributes {test.note = "idle"} {
// CHECK-NEXT:  }
cohort.graph @idle cores 1 attributes {test.note = "idle"} {
}

// CHECK-LABEL: func.func @main() {
// CHECK-NEXT:    cohort.launch @step
// CHECK-NEXT:    cohort.launch @idle
// CHECK-NEXT:    return
// GENERIC-LABEL: "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
// GENERIC-NEXT:    "cohort.launch"() <{graph = @step}> : () -> ()
func.func @main() {
  cohort.launch @step
  cohort.launch @idle
  return
}

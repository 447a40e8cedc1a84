// Run-time and compile-time errors of sluice-run exit with status 1 and a
// message.
// RUN: split-file --leading-lines %s %t
// RUN: %expect-exit 1 sluice-run %t/too-wide.mlir 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: %expect-exit 1 sluice-run %t/no-entry.mlir 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: %expect-exit 1 sluice-run %t/bad-kernel-type.mlir 2>&1 | FileCheck %s --check-prefix=KTYPE

//--- too-wide.mlir
func.func @k(%b: index, %n: index) {
  return
}
cohort.graph @g cores 2 {
  // WIDE: too-wide.mlir:[[@LINE+1]]:3: error: 'cohort.task' op cohort @wide has 3 blocks but graph @g has 2 cores: its blocks can never be co-resident
  cohort.task @wide kernel @k blocks 3 sync_start
}
func.func @main() {
  cohort.launch @g
  return
}

//--- no-entry.mlir
// ENTRY: error: no function @main with a body to run
func.func @other() {
  return
}

//--- bad-kernel-type.mlir
func.func @k(%b: i32) {
  return
}
cohort.graph @g cores 2 {
  // KTYPE: bad-kernel-type.mlir:[[@LINE+1]]:3: error: 'cohort.task' op kernel @k has type '(i32) -> ()'; the CPU executor calls kernels as (index, index) -> () with the block index and the block count
  cohort.task @t kernel @k blocks 2
}
func.func @main() {
  cohort.launch @g
  return
}

// Graphs whose cohorts fit their machine and whose dependencies are acyclic
// are accepted unchanged; --sluice-verify-cohort-fit=cores=N checks against N
// cores instead of each graph's own count.
// RUN: sluice-opt %s --sluice-verify-cohort-fit | FileCheck %s
// RUN: sluice-opt %s --sluice-verify-cohort-fit=cores=0 | FileCheck %s
// RUN: sluice-opt %s --sluice-verify-cohort-fit=cores=4 | FileCheck %s

func.func @k() {
  return
}

// A cohort of exactly `cores` blocks fits; a task that does not start in sync
// may have more blocks than cores.
// CHECK-LABEL: cohort.graph @exact cores 4 {
// CHECK-NEXT:    cohort.task @gate kernel @k blocks 4 sync_start
// CHECK-NEXT:    cohort.task @wide kernel @k blocks 1000{{$}}
cohort.graph @exact cores 4 {
  cohort.task @gate kernel @k blocks 4 sync_start
  cohort.task @wide kernel @k blocks 1000
  cohort.dependency @wide -> @gate
}

// A diamond with a redundant edge is acyclic.
// CHECK-LABEL: cohort.graph @diamond cores 4 {
cohort.graph @diamond cores 4 {
  cohort.task @a kernel @k blocks 1
  cohort.task @b kernel @k blocks 2 sync_start
  cohort.task @c kernel @k blocks 3 sync_start
  cohort.task @d kernel @k blocks 1
  cohort.dependency @a -> @b
  cohort.dependency @a -> @c
  cohort.dependency @b -> @d
  cohort.dependency @c -> @d
  cohort.dependency @a -> @d
  cohort.dependency @a -> @d
}

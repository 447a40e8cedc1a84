// A producer with more blocks than cores feeds a cohort that spans every core.
// The cohort's blocks exchange data through a cross-block barrier, so all four
// must run at once; it may be pre-staged while @load still runs.
//
//   sluice-opt --sluice-verify-cohort-fit examples/cohort_graph.mlir

func.func @load_kernel(%block: index, %blocks: index) {
  return
}
func.func @reduce_kernel(%block: index, %blocks: index) {
  return
}
func.func @store_kernel(%block: index, %blocks: index) {
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
  return
}

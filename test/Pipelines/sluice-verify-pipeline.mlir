// The --sluice-verify pipeline inlines the helpers stage code calls (the
// upstream inliner without simplification, the check that no call is left,
// symbol-dce of the inlined helpers), then runs the three verification
// passes, in order, on a valid program that uses all three dialects, and
// changes nothing (it calls no helper).
// RUN: sluice-opt %s --sluice-verify | FileCheck %s
// RUN: sluice-opt %s --sluice-verify --dump-pass-pipeline -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE
// RUN: sluice-opt %s --sluice-verify --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RAN

// PIPELINE:      Pass Manager with 6 passes:
// PIPELINE-NEXT: builtin.module(
// PIPELINE-NEXT:   inline{default-pipeline= inlining-threshold={{[0-9]+}} max-iterations=4 },
// PIPELINE-NEXT:   wave-verify-helpers-inlined,
// PIPELINE-NEXT:   symbol-dce,
// PIPELINE-NEXT:   sluice-verify-emission-bounds{print-bounds=false},
// PIPELINE-NEXT:   sluice-verify-item-linearity,
// PIPELINE-NEXT:   sluice-verify-cohort-fit{cores=0}
// PIPELINE-NEXT: )

// RAN: IR Dump After Inliner (inline)
// RAN: IR Dump After WaveVerifyHelpersInlined (wave-verify-helpers-inlined)
// RAN: IR Dump After SymbolDCE (symbol-dce)
// RAN: IR Dump After VerifyEmissionBounds (sluice-verify-emission-bounds)
// RAN: IR Dump After VerifyItemLinearity (sluice-verify-item-linearity)
// RAN: IR Dump After VerifyCohortFit (sluice-verify-cohort-fit)

// CHECK-LABEL: pool.owner @shadow capacity 4 stages ["intersect", "shade"] payload [i32] {
pool.owner @shadow capacity 4 stages ["intersect", "shade"] payload [i32] {
  pool.handler "intersect" (%item) {
    %id = pool.load %item : i32
    %c0 = arith.constant 0 : i32
    %hit = arith.cmpi sgt, %id, %c0 : i32
    scf.if %hit {
      pool.move %item to "shade"
    } else {
      pool.release %item
    }
  }
  pool.handler "shade" (%item) {
    pool.release %item
  }
}

// CHECK-LABEL: pool.emission_bound @path -> @shadow max 2{{$}}
pool.emission_bound @path -> @shadow max 2

// entry: 1 publish; 'bounce': 2 iterations of 1 publish = 2.
// CHECK-LABEL: wave.coroutine @path(
// CHECK-SAME:      %[[PIXEL:.*]]: i32) {
// CHECK:         pool.publish @shadow "intersect" (%[[PIXEL]]) : i32
wave.coroutine @path(%pixel: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pool.publish @shadow "intersect" (%pixel) : i32
  wave.suspend "bounce" sort_by %pixel : i32
  scf.for %i = %c0 to %c2 step %c1 {
    pool.publish @shadow "intersect" (%pixel) : i32
  }
  wave.terminate
}

func.func @path_kernel() {
  return
}
func.func @shade_kernel() {
  return
}

// CHECK-LABEL: cohort.graph @frame cores 4 {
// CHECK-NEXT:    cohort.task @trace kernel @path_kernel blocks 64 allow_early_resolve
// CHECK-NEXT:    cohort.task @shade kernel @shade_kernel blocks 4 sync_start
// CHECK-NEXT:    cohort.dependency @trace -> @shade
cohort.graph @frame cores 4 {
  cohort.task @trace kernel @path_kernel blocks 64 allow_early_resolve
  cohort.task @shade kernel @shade_kernel blocks 4 sync_start
  cohort.dependency @trace -> @shade
}

// CHECK-LABEL: func.func @main() {
// CHECK-NEXT:    cohort.launch @frame
func.func @main() {
  cohort.launch @frame
  return
}

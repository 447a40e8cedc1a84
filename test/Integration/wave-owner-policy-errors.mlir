// Owner policies that break their contract stop the run with a protocol
// error naming the owner, the hook and the numbers, in both scheduler
// placements (the same message), and backends without a policy lowering
// refuse the program.
// RUN: split-file %s %t
//
// A prepare_for_producer that bumps the count of stage "sort": at
// iteration 0 the owner is empty ([0, 0]) and 2 invocations are admitted.
// RUN: %expect-exit 1 sluice-run %t/count.mlir --lanes=2 --scheduler-placement=host 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: %expect-exit 1 sluice-run %t/count.mlir --lanes=2 --scheduler-placement=device 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: owner 'arena': hook prepare_for_producer (@bump_count) changed the stage counts [0, 0] to [1, 0]; owner hooks are storage-only{{$}}
//
// An availability that ignores L (A = C = 4 always): iteration 0 admits the
// first 2 lanes' items (L = 2 after), iteration 1 refills 2 more and asks
// again: 4 > C - L = 4 - 2 = 2.
// RUN: %expect-exit 1 sluice-run %t/range.mlir --lanes=4 --frame-pool=2 --scheduler-placement=host 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: %expect-exit 1 sluice-run %t/range.mlir --lanes=4 --frame-pool=2 --scheduler-placement=device 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: owner 'arena' reported availability 4 from hook availability (@ignore_live) but only C - L = 4 - 2 = 2 slots are free{{$}}
//
// An availability that is negative.
// RUN: %expect-exit 1 sluice-run %t/negative.mlir --lanes=2 --scheduler-placement=device 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: owner 'arena' reported availability -3 from hook availability (@negative); an availability is at least 0{{$}}
//
// An empty owner must report A = C (the progress rule).
// RUN: %expect-exit 1 sluice-run %t/empty.mlir --lanes=2 --scheduler-placement=host 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: owner 'arena' is empty but reported availability 3 from hook availability (@one_short) instead of its capacity 4
//
// An admission stage that changes a count, then one that names an empty
// stage: iteration 0 admits 4 items (A = C = 4), iteration 1 refills 4
// lanes and is blocked (A = C - L = 0), so the owner is asked for its
// admission stage with counts [4, 0].
// RUN: %expect-exit 1 sluice-run %t/drain-count.mlir --lanes=8 --frame-pool=4 --scheduler-placement=device 2>&1 | FileCheck %s --check-prefix=DRAINCOUNT
// DRAINCOUNT: owner 'arena': hook admission_stage (@drain_count) changed the stage counts [4, 0] to [4, 7]; owner hooks are storage-only{{$}}
// RUN: %expect-exit 1 sluice-run %t/drain-empty.mlir --lanes=8 --frame-pool=4 --scheduler-placement=host 2>&1 | FileCheck %s --check-prefix=DRAINEMPTY
// DRAINEMPTY: owner 'arena' chose admission stage 1 which holds no items; stage counts [4, 0]{{$}}
//
// The HIP backend lowers the hooks as __device__ functions of its source
// (their symbols in the descriptor's backends.hip.symbols, "@hook"); the
// Vulkan backend as one kernel per owner, sluice_policy_<o>, whose host
// placement stops with the same messages
// (test/Integration/vulkan/vulkan-owner-policy-errors.test).
// RUN: sluice-translate --sluice-to-artifact --sluice-backends=hip %t/count.mlir -o %t.hip.sluice
// RUN: sluice-run-artifact --describe %t.hip.sluice | FileCheck %s --check-prefix=HIP
// HIP: backend hip: section 'hip', {{[0-9]+}} bytes, policy hooks @bump_count as sluice_kernels_bump_count{{$}}
//
// The Vulkan backend inlines each hook into its owner's kernel: a hook of
// several blocks (unstructured control flow) is refused, at the hook; the
// cpu backend compiles it.
// RUN: %expect-exit 1 sluice-translate --sluice-to-artifact --sluice-backends=vulkan %t/blocks.mlir -o %t.blocks.sluice 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: blocks.mlir:{{[0-9]+}}:1: error: 'func.func' op is an owner policy hook with 3 blocks; the vulkan backend inlines hooks of one block (use scf for control flow){{$}}
// RUN: sluice-run %t/blocks.mlir --lanes=4 --frame-pool=2 | FileCheck %s --check-prefix=BLOCKSCPU
// BLOCKSCPU: lanes finished: 4{{$}}

//--- count.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {prepare_for_producer = @bump_count} {
  pool.handler "sort" (%item) {
    pool.release %item
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
func.func @bump_count(%storage: memref<0xi64>, %counts: memref<2xi32>,
                      %capacity: i64, %live: i64, %slots: i64) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %q = memref.load %counts[%c0] : memref<2xi32>
  %q1 = arith.addi %q, %one : i32
  memref.store %q1, %counts[%c0] : memref<2xi32>
  return
}

//--- range.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {availability = @ignore_live} {
  pool.handler "sort" (%item) {
    pool.move %item to "keep"
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
func.func @ignore_live(%storage: memref<0xi64>, %counts: memref<2xi32>,
                       %capacity: i64, %live: i64) -> i64 {
  return %capacity : i64
}

//--- negative.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {availability = @negative} {
  pool.handler "sort" (%item) {
    pool.release %item
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
func.func @negative(%storage: memref<0xi64>, %counts: memref<2xi32>,
                    %capacity: i64, %live: i64) -> i64 {
  %minus = arith.constant -3 : i64
  return %minus : i64
}

//--- empty.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {availability = @one_short} {
  pool.handler "sort" (%item) {
    pool.release %item
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
func.func @one_short(%storage: memref<0xi64>, %counts: memref<2xi32>,
                     %capacity: i64, %live: i64) -> i64 {
  %one = arith.constant 1 : i64
  %a = arith.subi %capacity, %one : i64
  return %a : i64
}

//--- drain-count.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {admission_stage = @drain_count} {
  pool.handler "sort" (%item) {
    pool.release %item
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
func.func @drain_count(%storage: memref<0xi64>, %counts: memref<2xi32>,
                       %capacity: i64, %live: i64) -> i32 {
  %c1 = arith.constant 1 : index
  %seven = arith.constant 7 : i32
  memref.store %seven, %counts[%c1] : memref<2xi32>
  %zero = arith.constant 0 : i32
  return %zero : i32
}

//--- drain-empty.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {admission_stage = @drain_keep} {
  pool.handler "sort" (%item) {
    pool.release %item
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
func.func @drain_keep(%storage: memref<0xi64>, %counts: memref<2xi32>,
                      %capacity: i64, %live: i64) -> i32 {
  %one = arith.constant 1 : i32
  return %one : i32
}

//--- blocks.mlir
pool.owner @arena capacity 4 stages ["sort", "keep"] payload [i32]
    policy {availability = @branchy} {
  pool.handler "sort" (%item) {
    pool.release %item
  }
  pool.handler "keep" (%item) {
    pool.release %item
  }
}
pool.emission_bound @allocate -> @arena max 1
wave.coroutine @allocate(%lane: i32) {
  pool.publish @arena "sort" (%lane) : i32
  wave.terminate
}
// A = C - L, through a branch.
func.func @branchy(%storage: memref<0xi64>, %counts: memref<2xi32>,
                   %capacity: i64, %live: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %empty = arith.cmpi eq, %live, %zero : i64
  cf.cond_br %empty, ^full, ^rest
^full:
  return %capacity : i64
^rest:
  %free = arith.subi %capacity, %live : i64
  return %free : i64
}

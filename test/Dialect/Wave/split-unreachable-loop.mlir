// wave-split crashed on this program (found by scripts/differential-lane-vectors
// --wave, reduced line by line): after the control flow around the
// suspensions is lowered to a CFG, cf.cond_br's canonicalization folds the
// inner scf.if's second test of %v7 (already decided on that path), which
// leaves blocks that no path reaches, among them a loop; cf.br's
// canonicalization then merged that loop's header into its only
// predecessor, the loop's own latch, whose operands are the header's own
// arguments, and erased the header with its arguments still in use (a use
// after free in a later fold). CoroutineSplitting.cpp's branch cleanup now
// erases unreachable blocks before it canonicalizes a branch in one.
//
// The i16 value the outer loop carries is 255 on every path (each branch
// yields it unchanged), so out[4 lane + 1] = 255 and every other element
// stays 0, on both schedules.
// RUN: sluice-opt --wave-split %s | FileCheck %s --check-prefix=SPLIT
// SPLIT: stage 1 "s3"
// SPLIT: stage 2 "s4"
// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<256i', *[(j * 7919) % 1000 - 500 for j in range(256)]))" %t.ini
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes(8 * 32))" %t.out
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes(8))" %t.acc
// RUN: sluice-run %s --lanes=8 --bind=ini=%t.ini --bind=out=%t.out --bind=acc=%t.acc --print=out | FileCheck %s
// RUN: sluice-run %s --lanes=8 --schedule=state-machine --bind=ini=%t.ini --bind=out=%t.out --bind=acc=%t.acc --print=out | FileCheck %s
// CHECK: out: i64[32] = 0 255 0 0 0 255 0 0 0 255 0 0 0 255 0 0 0 255 0 0 0 255 0 0 0 255 0 0 0 255 0 0{{$}}
wave.coroutine @c(%lane: i32)
    bind(%ini: memref<?xi32> readonly, %out: memref<?xi64>, %acc: memref<?xi64>) {
  %gid = arith.index_cast %lane : i32 to index
  %v1 = arith.extsi %lane : i32 to i64
  %v4 = arith.constant 175 : index
  %v5 = memref.load %ini[%v4] : memref<?xi32>
  %v6 = arith.constant 5 : i32
  %v7 = arith.cmpi ult, %lane, %v6 : i32
  %v8 = arith.constant 7 : i32
  %v9 = arith.andi %v5, %v8 : i32
  %v10 = arith.constant 255 : i16
  %v11:2 = scf.while (%v12 = %v9, %v13 = %v10) : (i32, i16) -> (i32, i16) {
    %v14 = arith.constant 0 : i32
    %v15 = arith.cmpi sgt, %v12, %v14 : i32
    scf.condition(%v15) %v12, %v13 : i32, i16
  } do {
  ^bb0(%v16: i32, %v17: i16):
    %v18 = scf.if %v7 -> (i16) {
      %v19 = arith.constant 7 : i32
      %v20 = arith.andi %v5, %v19 : i32
      %v21 = arith.constant 1 : i32
      %v22:2 = scf.while (%v23 = %v20, %v24 = %v21) : (i32, i32) -> (i32, i32) {
        %v25 = arith.constant 0 : i32
        %v26 = arith.cmpi sgt, %v23, %v25 : i32
        scf.condition(%v26) %v23, %v24 : i32, i32
      } do {
      ^bb0(%v27: i32, %v28: i32):
        %v29 = arith.constant true
        %v30 = arith.extui %v29 : i1 to i32
        %v31 = arith.constant 0 : index
        %v32 = memref.atomic_rmw addi %v1, %acc[%v31] : (i64, memref<?xi64>) -> i64
        %v34 = arith.constant 1 : i32
        %v35 = arith.subi %v27, %v34 : i32
        scf.yield %v35, %v30 : i32, i32
      }
      scf.yield %v17 : i16
    } else {
      %v36 = scf.if %v7 -> (i32) {
        scf.yield %v16 : i32
      } else {
        wave.suspend "s3" sort_by %v16 : i32
        %v37 = arith.constant 1 : i32
        scf.yield %v37 : i32
      }
      %v38 = arith.extui %v7 : i1 to i32
      %v39 = arith.constant 0 : index
      %v40 = arith.constant 1 : index
      %v41 = arith.constant 3 : index
      %v42 = arith.constant 7 : i64
      %v43:2 = scf.for %v44 = %v39 to %v41 step %v40 iter_args(%v45 = %v42, %v46 = %v36) -> (i64, i32) {
        %v50 = arith.constant 255 : i32
        %v51 = arith.andi %v38, %v50 : i32
        %v52 = arith.index_castui %v51 : i32 to index
        %v53 = memref.load %ini[%v52] : memref<?xi32>
        wave.suspend "s4"
        scf.yield %v45, %v53 : i64, i32
      }
      scf.yield %v17 : i16
    }
    %v57 = arith.constant 1 : i32
    %v58 = arith.subi %v16, %v57 : i32
    scf.yield %v58, %v18 : i32, i16
  }
  %v70 = arith.constant 0 : index
  %v71 = arith.constant 1 : index
  %v72 = arith.constant 5 : i64
  %v73 = arith.andi %v1, %v72 : i64
  %v74 = arith.index_castui %v73 : i64 to index
  %v75 = scf.for %v76 = %v70 to %v74 step %v71 iter_args(%v77 = %v1) -> (i64) {
    scf.yield %v77 : i64
  }
  %v89 = arith.extsi %v11#1 : i16 to i64
  %v90 = arith.constant 4 : index
  %v91 = arith.muli %gid, %v90 : index
  %v92 = arith.constant 1 : index
  %v93 = arith.addi %v91, %v92 : index
  memref.store %v89, %out[%v93] : memref<?xi64>
  wave.terminate
}
func.func @main() {
  return
}

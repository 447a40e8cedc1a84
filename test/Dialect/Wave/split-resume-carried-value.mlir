// wave-split crashed on this program, or wrote a stage that read a value its
// path never defined (found by scripts/differential-lane-vectors --wave
// --vulkan --seed 190, reduced line by line). Stage "s2" resumes inside the
// inner loop, so the outer loop's carried %v43 has two definitions in it:
// the frame copy at the stage entry and the outer loop's block argument.
// The SSA repair of its uses appends phi operands to branches, which moved
// the operands of the resume block's branch to new storage while the
// splitter still held a pointer to one of them: the write went to freed
// memory, the branch kept the outer block argument (which the stage's entry
// does not dominate) and the use list was corrupt (a crash in the driver's
// region simplification). Now the replacement values are found first and
// the uses collected after. The resume branch passes the frame copy of %v43
// both as the inner loop's carried value and as the outer value the loop
// keeps.
// RUN: sluice-opt --wave-split %s | FileCheck %s

// CHECK-LABEL: stage 1 "s2"
// CHECK: %[[OUTER:.*]] = wave.frame_load %frame "v4" : i64
// CHECK-NOT: ^bb
// CHECK: cf.br ^bb{{[0-9]+}}(%{{[0-9]+}}, %{{[0-9]+}}, %[[OUTER]], %{{[0-9]+}}, %[[OUTER]],

wave.coroutine @c(%lane: i32)
    bind(%ini: memref<?xi32> readonly, %inf: memref<?xf32> readonly,
         %out: memref<?xi64>, %acc: memref<?xi64>) {
  %gid = arith.index_cast %lane : i32 to index
  %v1 = arith.extsi %lane : i32 to i64
  %v4 = arith.constant 189 : index
  %v5 = memref.load %ini[%v4] : memref<?xi32>
  %v6 = arith.constant 5 : i32
  %v7 = arith.cmpi ult, %lane, %v6 : i32
  %v8 = arith.constant 1 : i16
  %v9 = arith.constant 255 : i16
  %v10 = arith.constant 1 : i16
  %v11 = arith.ori %v9, %v10 : i16
  %v12 = arith.divui %v8, %v11 : i16
  %v28 = arith.constant 255 : i32
  %v29 = arith.andi %lane, %v28 : i32
  %v30 = arith.index_castui %v29 : i32 to index
  %v31 = memref.load %ini[%v30] : memref<?xi32>
  %v35 = arith.constant 0 : index
  %v36 = arith.constant 1 : index
  %v37 = arith.constant 5 : i32
  %v38 = arith.andi %v31, %v37 : i32
  %v39 = arith.index_castui %v38 : i32 to index
  %v40:2 = scf.for %v41 = %v35 to %v39 step %v36 iter_args(%v42 = %v1, %v43 = %v1) -> (i64, i64) {
    %v44 = arith.index_cast %v41 : index to i32
    scf.if %v7 {
      %v46:2 = scf.if %v7 -> (i16, i64) {
        %v47 = memref.alloca() : memref<4xi64>
        %v52 = arith.constant 3 : i64
        %v53 = arith.andi %v42, %v52 : i64
        %v54 = arith.index_castui %v53 : i64 to index
        %v55 = memref.load %v47[%v54] : memref<4xi64>
        %v56 = arith.constant 255 : i16
        scf.yield %v56, %v55 : i16, i64
      } else {
        %v57 = arith.constant 0 : i32
        %v58 = arith.cmpi uge, %v57, %lane : i32
        %v59 = arith.select %v58, %v44, %v5 : i32
        %v60 = arith.cmpi ule, %v59, %v44 : i32
        %v61 = arith.constant 255 : i16
        %v62 = arith.select %v60, %v12, %v61 : i16
        scf.yield %v62, %v43 : i16, i64
      }
      %v63 = arith.constant 0 : index
      %v64 = arith.constant 1 : index
      %v65 = arith.constant 5 : i32
      %v66 = arith.andi %lane, %v65 : i32
      %v67 = arith.index_castui %v66 : i32 to index
      %v68 = arith.constant 7 : i64
      %v69:2 = scf.for %v70 = %v63 to %v67 step %v64 iter_args(%v71 = %v46#0, %v72 = %v68) -> (i16, i64) {
        %v74 = arith.constant 7 : index
        %v75 = arith.constant 529 : index
        %v76 = arith.constant 1 : index
        %v77 = arith.muli %gid, %v74 : index
        %v78 = arith.addi %v77, %v75 : index
        %v79 = arith.remui %v78, %v76 : index
        %v80 = arith.constant 3 : index
        %v81 = arith.addi %v79, %v80 : index
        memref.store %v72, %out[%v81] : memref<?xi64>
        %v82 = arith.ori %lane, %v44 : i32
        wave.suspend "s2" sort_by %v82 : i32
        scf.yield %v71, %v43 : i16, i64
      }
      %v83 = memref.alloca() : memref<2xi16>
      %v84 = arith.constant 0 : index
      memref.store %v69#0, %v83[%v84] : memref<2xi16>
    }
    scf.yield %v43, %v43 : i64, i64
  }
  wave.terminate
}

// A wave program whose stage kernels load i32 frame fields beside i8 and
// i16 ones (found by scripts/differential-lane-vectors --wave --vulkan, seed
// 112, reduced by deleting line ranges). sluice-gpu-to-spirv rewrites the
// frame buffer (a byte array) into a word array, but it created the words'
// loads while the argument was still typed as bytes, so every field load
// was an i8 load of a word; a target without Int8 holds an i8 in an i32 and
// hid it, lavapipe's has Int8, and an unsigned compare of such a field
// failed to convert ("bitwidth emulation is not implemented yet on unsigned
// op"). The argument is typed as words first now. Both backends must print
// the same bindings.
// RUN: sluice-opt --sluice-wave-to-gpu %s | sluice-opt --sluice-gpu-to-spirv | FileCheck %s --check-prefix=SPIRV
// SPIRV-NOT: memref.load
// SPIRV: spirv.module
// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<256i', *[(j * 7919) % 1000 - 500 for j in range(256)]))" %t.ini
// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<256f', *[j * 0.25 for j in range(256)]))" %t.inf
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes(8 * 32))" %t.out
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes(8))" %t.acc
// RUN: sluice-run %s --lanes=8 --bind=ini=%t.ini --bind=inf=%t.inf --bind=out=%t.out --bind=acc=%t.acc --print=out --print=acc | grep -E "^(out|acc):" > %t.cpu
// RUN: sluice-run %s --backend=vulkan --lanes=8 --bind=ini=%t.ini --bind=inf=%t.inf --bind=out=%t.out --bind=acc=%t.acc --print=out --print=acc | grep -E "^(out|acc):" > %t.vulkan
// RUN: diff %t.cpu %t.vulkan
// RUN: FileCheck %s --input-file=%t.cpu
// CHECK: out: i64[32] =
// CHECK: acc: i64[1] =
// REQUIRES: vulkan
wave.coroutine @c(%lane: i32)
    bind(%ini: memref<?xi32> readonly, %inf: memref<?xf32> readonly,
         %out: memref<?xi64>, %acc: memref<?xi64>) {
  %gid = arith.index_cast %lane : i32 to index
  %v1 = arith.extsi %lane : i32 to i64
  %v4 = arith.constant 215 : index
  %v5 = memref.load %ini[%v4] : memref<?xi32>
  %v6 = arith.constant 5 : i32
  %v7 = arith.cmpi ult, %lane, %v6 : i32
  %v8 = arith.constant 7 : i32
  %v9 = arith.andi %lane, %v8 : i32
  %v10 = arith.constant -37 : i8
  %v11:2 = scf.while (%v12 = %v9, %v13 = %v10) : (i32, i8) -> (i32, i8) {
    %v14 = arith.constant 0 : i32
    %v15 = arith.cmpi sgt, %v12, %v14 : i32
    scf.condition(%v15) %v12, %v13 : i32, i8
  } do {
  ^bb0(%v16: i32, %v17: i8):
    %v22 = arith.constant 7 : i32
    %v23 = arith.andi %v16, %v22 : i32
    %v24 = arith.constant 7 : i32
    %v25:2 = scf.while (%v26 = %v23, %v27 = %v24) : (i32, i32) -> (i32, i32) {
      %v28 = arith.constant 0 : i32
      %v29 = arith.cmpi sgt, %v26, %v28 : i32
      scf.condition(%v29) %v26, %v27 : i32, i32
    } do {
    ^bb0(%v30: i32, %v31: i32):
      %v32 = memref.alloca() : memref<2xi32>
      %v88 = arith.constant 1 : index
      %v89 = memref.load %v32[%v88] : memref<2xi32>
      %v90 = arith.constant 0 : index
      %v91 = arith.constant 1 : index
      %v92 = arith.constant 5 : i32
      %v93 = arith.andi %v89, %v92 : i32
      %v94 = arith.index_castui %v93 : i32 to index
      %v95 = scf.for %v96 = %v90 to %v94 step %v91 iter_args(%v97 = %v1) -> (i64) {
        wave.suspend "s1" sort_by %v97 : i64
        scf.yield %v97 : i64
      }
      %v101 = arith.andi %v31, %v31 : i32
      %v102 = arith.constant 1 : i32
      %v103 = arith.subi %v30, %v102 : i32
      scf.yield %v103, %v101 : i32, i32
    }
    %v104 = arith.constant 1 : i32
    %v105 = arith.subi %v16, %v104 : i32
    scf.yield %v105, %v17 : i32, i8
  }
  %v110 = scf.if %v7 -> (i16) {
    %v118 = arith.constant 0 : i16
    scf.yield %v118 : i16
  } else {
    %v129 = arith.constant -1 : i16
    scf.yield %v129 : i16
  }
  %v130 = arith.cmpi ule, %lane, %v11#0 : i32
  %v131 = arith.select %v130, %v5, %lane : i32
  %v132 = arith.constant 0 : i32
  %v133 = arith.muli %lane, %v132 : i32
  %v134 = memref.alloca() : memref<2xi16>
  scf.execute_region {
    cf.cond_br %v7, ^bb136_3, ^bb136_2(%v110 : i16)
  ^bb136_2(%v170: i16):
    %v171 = arith.constant 7 : i32
    %v172 = arith.andi %v131, %v171 : i32
    %v173:2 = scf.while (%v174 = %v172, %v175 = %v11#1) : (i32, i8) -> (i32, i8) {
      %v176 = arith.constant 0 : i32
      %v177 = arith.cmpi sgt, %v174, %v176 : i32
      scf.condition(%v177) %v174, %v175 : i32, i8
    } do {
    ^bb0(%v178: i32, %v179: i8):
      %v183:2 = scf.if %v130 -> (i16, i16) {
        scf.yield %v170, %v170 : i16, i16
      } else {
        scf.yield %v170, %v110 : i16, i16
      }
      %v193 = arith.constant 1 : i32
      %v194 = arith.subi %v178, %v193 : i32
      scf.yield %v194, %v179 : i32, i8
    }
    cf.br ^bb136_3
  ^bb136_3:
    scf.yield
  }
  %v206 = arith.constant 0 : index
  %v207 = memref.load %v134[%v206] : memref<2xi16>
  %v208 = arith.constant 1 : index
  %v209 = memref.load %v134[%v208] : memref<2xi16>
  %v210 = scf.if %v7 -> (i16) {
    scf.yield %v209 : i16
  } else {
    scf.yield %v209 : i16
  }
  %v326 = arith.trunci %v1 : i64 to i32
  %v327 = arith.constant -989 : i32
  %v328 = arith.addi %v327, %v326 : i32
  scf.execute_region {
    %v332 = scf.if %v7 -> (i64) {
      %v333 = arith.constant -1 : i64
      %v334 = math.absi %v333 : i64
      scf.yield %v334 : i64
    } else {
      %v337 = arith.constant -1 : i64
      %v338 = arith.minsi %v1, %v337 : i64
      %v339 = arith.constant 7 : i32
      %v340 = arith.andi %v328, %v339 : i32
      %v341:2 = scf.while (%v342 = %v340, %v343 = %v110) : (i32, i16) -> (i32, i16) {
        %v344 = arith.constant 0 : i32
        %v345 = arith.cmpi sgt, %v342, %v344 : i32
        scf.condition(%v345) %v342, %v343 : i32, i16
      } do {
      ^bb0(%v346: i32, %v347: i16):
        %v349 = arith.trunci %v1 : i64 to i16
        %v352 = arith.constant 1 : i32
        %v353 = arith.subi %v346, %v352 : i32
        scf.yield %v353, %v349 : i32, i16
      }
      scf.yield %v338 : i64
    }
    %v354 = arith.cmpi sgt, %v332, %v332 : i64
    cf.cond_br %v354, ^bb331_2(%v1 : i64), ^bb331_1(%v1 : i64)
  ^bb331_1(%v357: i64):
    %v362:2 = scf.if %v7 -> (i16, i64) {
      scf.yield %v110, %v1 : i16, i64
    } else {
      %v429 = memref.alloca() : memref<2xi64>
      %v449 = arith.constant 1 : index
      %v450 = memref.load %v429[%v449] : memref<2xi64>
      %v451 = arith.cmpi ugt, %v328, %v328 : i32
      %v452 = arith.constant -1 : i16
      %v453 = arith.select %v451, %v207, %v452 : i16
      scf.yield %v453, %v450 : i16, i64
    }
    cf.cond_br %v7, ^bb331_2(%v357 : i64), ^bb331_2(%v1 : i64)
  ^bb331_2(%v457: i64):
    %v458 = scf.if %v130 -> (i32) {
      %v459 = arith.constant 255 : i64
      %v460 = arith.andi %v1, %v459 : i64
      %v461 = arith.index_castui %v460 : i64 to index
      %v462 = memref.load %ini[%v461] : memref<?xi32>
      %v471:2 = scf.if %v130 -> (i16, i32) {
        scf.yield %v110, %v462 : i16, i32
      } else {
        %v482 = arith.constant 1 : i32
        %v483 = arith.ori %v462, %v482 : i32
        %v484 = arith.ceildivui %v133, %v483 : i32
        scf.yield %v207, %v484 : i16, i32
      }
      scf.yield %v462 : i32
    } else {
      scf.yield %v326 : i32
    }
    scf.yield
  }
  %v502:2 = scf.if %v130 -> (i8, i64) {
    scf.yield %v11#1, %v1 : i8, i64
  } else {
    %v517 = arith.constant 7 : i32
    %v518 = arith.andi %v326, %v517 : i32
    %v519:2 = scf.while (%v520 = %v518, %v521 = %v1) : (i32, i64) -> (i32, i64) {
      %v522 = arith.constant 0 : i32
      %v523 = arith.cmpi sgt, %v520, %v522 : i32
      scf.condition(%v523) %v520, %v521 : i32, i64
    } do {
    ^bb0(%v524: i32, %v525: i64):
      %v557:2 = scf.if %v7 -> (i64, i64) {
        %v560 = arith.cmpi sgt, %v1, %v525 : i64
        %v561 = arith.select %v560, %v1, %v525 : i64
        scf.yield %v561, %v561 : i64, i64
      } else {
        scf.yield %v1, %v1 : i64, i64
      }
      %v586 = arith.constant 1 : i32
      %v587 = arith.subi %v524, %v586 : i32
      scf.yield %v587, %v557#1 : i32, i64
    }
    scf.yield %v11#1, %v519#1 : i8, i64
  }
  %v633 = arith.extsi %v502#0 : i8 to i64
  %v634 = arith.constant 4 : index
  %v635 = arith.muli %gid, %v634 : index
  %v636 = arith.constant 3 : index
  %v637 = arith.addi %v635, %v636 : index
  memref.store %v633, %out[%v637] : memref<?xi64>
  wave.terminate
}

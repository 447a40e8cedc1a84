// A stage that resumes inside an scf.if inside two lane-dependent scf.for
// loops (found by scripts/differential-lane-vectors --wave --vulkan --seed
// 8): its stage kernel's CFG holds the rest of both loops, which
// sluice-gpu-to-spirv lifts back to nested loops whose headers hold nested
// loops. MLIR's serializer gave the inner loop's OpPhi the outer header as
// its incoming block, which is not a predecessor; the module failed spirv-val
// and lavapipe ran the entry stage forever. sluice-spirv-split-loop-headers
// gives such headers a block of their own. The Vulkan run (20 s at most) must
// print what the CPU prints, and the SPIR-V must pass spirv-val.
// REQUIRES: vulkan
// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<256i', *[(j * 7919) % 1000 - 500 for j in range(256)]))" %t.ini
// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<256f', *[j * 0.25 for j in range(256)]))" %t.inf
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes(8 * 42))" %t.out
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes(8))" %t.acc
// RUN: sluice-run %s --lanes=7 --bind=ini=%t.ini --bind=inf=%t.inf --bind=out=%t.out --bind=acc=%t.acc --print=out --print=acc | grep -E "^(out|acc):" > %t.cpu
// RUN: timeout 20 sluice-run %s --backend=vulkan --lanes=7 --bind=ini=%t.ini --bind=inf=%t.inf --bind=out=%t.out --bind=acc=%t.acc --print=out --print=acc | grep -E "^(out|acc):" > %t.vulkan
// RUN: diff %t.cpu %t.vulkan
// RUN: %if spirv-tools %{ sluice-opt --sluice-wave-to-gpu %s | sluice-opt --sluice-wave-to-spirv | sluice-translate --sluice-to-spirv-bin -o %t.spv %}
// RUN: %if spirv-tools %{ spirv-val --target-env vulkan1.1 %t.spv %}
wave.coroutine @c(%lane: i32)
    bind(%ini: memref<?xi32> readonly, %inf: memref<?xf32> readonly,
         %out: memref<?xi64>, %acc: memref<?xi64>) {
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  %gid = arith.index_cast %lane : i32 to index
  %v1 = arith.extsi %lane : i32 to i64
  %v2 = arith.remui %gid, %c256 : index
  %v3 = memref.load %ini[%v2] : memref<?xi32>
  %v4 = arith.constant 64 : index
  %v5 = memref.load %ini[%v4] : memref<?xi32>
  %v6 = arith.constant 5 : i32
  %v7 = arith.cmpi ult, %lane, %v6 : i32
  %v8 = arith.constant 7 : i32
  %v9 = arith.constant 16383 : i32
  %v10 = arith.constant 1 : i32
  %v11 = arith.andi %lane, %v9 : i32
  %v12 = arith.ori %v11, %v10 : i32
  %v13 = arith.remsi %v8, %v12 : i32
  wave.suspend "s1"
  %v14 = arith.constant 255 : i32
  %v15 = arith.andi %v3, %v14 : i32
  %v16 = arith.index_castui %v15 : i32 to index
  %v17 = memref.load %ini[%v16] : memref<?xi32>
  %v18 = arith.constant 7 : i32
  %v19 = arith.andi %lane, %v18 : i32
  %v20 = arith.constant 0 : i8
  %v21:2 = scf.while (%v22 = %v19, %v23 = %v20) : (i32, i8) -> (i32, i8) {
    %v24 = arith.constant 0 : i32
    %v25 = arith.cmpi sgt, %v22, %v24 : i32
    scf.condition(%v25) %v22, %v23 : i32, i8
  } do {
  ^bb0(%v26: i32, %v27: i8):
    %v28 = arith.maxui %v13, %v26 : i32
    wave.suspend "s2"
    %v29 = arith.minui %v27, %v27 : i8
    %v30 = arith.constant 1 : i32
    %v31 = arith.subi %v26, %v30 : i32
    scf.yield %v31, %v29 : i32, i8
  }
  %v32 = arith.constant 0 : index
  %v33 = arith.constant 1 : index
  %v34 = arith.constant 5 : i64
  %v35 = arith.andi %v1, %v34 : i64
  %v36 = arith.index_castui %v35 : i64 to index
  %v37:2 = scf.for %v38 = %v32 to %v36 step %v33 iter_args(%v39 = %v21#0, %v40 = %v1) -> (i32, i64) {
    %v41 = arith.index_cast %v38 : index to i32
    %v42 = arith.constant 5 : index
    %v43 = arith.constant 954 : index
    %v44 = arith.constant 7 : index
    %v45 = arith.muli %gid, %v42 : index
    %v46 = arith.addi %v45, %v43 : index
    %v47 = arith.remui %v46, %v44 : index
    %v48 = arith.constant 28 : index
    %v49 = arith.addi %v47, %v48 : index
    memref.store %v1, %out[%v49] : memref<?xi64>
    %v50 = arith.constant 0 : index
    %v51 = arith.constant 1 : index
    %v52 = arith.constant 5 : i32
    %v53 = arith.andi %v41, %v52 : i32
    %v54 = arith.index_castui %v53 : i32 to index
    %v55 = arith.constant 1 : i16
    %v56:2 = scf.for %v57 = %v50 to %v54 step %v51 iter_args(%v58 = %v55, %v59 = %v1) -> (i16, i64) {
      %v60 = arith.index_cast %v57 : index to i32
      scf.if %v7 {
        %v62 = math.absi %v58 : i16
        %v63 = arith.constant 0 : index
        %v64 = memref.atomic_rmw addi %v59, %acc[%v63] : (i64, memref<?xi64>) -> i64
        wave.suspend "s3" sort_by %v17 : i32
        %v65 = arith.constant 0 : index
        %v66 = memref.atomic_rmw addi %v40, %acc[%v65] : (i64, memref<?xi64>) -> i64
        scf.yield
      } else {
        %v67 = arith.cmpi ule, %v17, %v60 : i32
        %v68 = arith.select %v67, %v59, %v1 : i64
        %v69 = arith.extsi %v21#1 : i8 to i16
        %v70 = arith.constant 255 : i64
        %v71 = arith.andi %v1, %v70 : i64
        %v72 = arith.index_castui %v71 : i64 to index
        %v73 = memref.load %ini[%v72] : memref<?xi32>
        scf.yield
      }
      scf.yield %v58, %v59 : i16, i64
    }
    scf.yield %v41, %v56#1 : i32, i64
  }
  %v74 = arith.cmpi sge, %v1, %v1 : i64
  %v75 = arith.constant 14007 : i16
  %v76 = arith.constant 833 : i16
  %v77 = arith.select %v74, %v75, %v76 : i16
  %v78 = arith.constant 23 : index
  %v79 = arith.constant 940 : index
  %v80 = arith.constant 7 : index
  %v81 = arith.muli %gid, %v78 : index
  %v82 = arith.addi %v81, %v79 : index
  %v83 = arith.remui %v82, %v80 : index
  %v84 = arith.constant 35 : index
  %v85 = arith.addi %v83, %v84 : index
  memref.store %v1, %out[%v85] : memref<?xi64>
  %v86 = arith.cmpi uge, %v1, %v1 : i64
  %v87 = arith.select %v86, %v77, %v77 : i16
  %v88 = arith.constant 255 : i64
  %v89 = arith.andi %v1, %v88 : i64
  %v90 = arith.index_castui %v89 : i64 to index
  %v91 = memref.load %ini[%v90] : memref<?xi32>
  wave.suspend "s4" sort_by %v1 : i64
  %v92 = arith.extsi %v21#0 : i32 to i64
  %v93 = arith.constant 0 : i8
  %v94 = arith.extsi %v93 : i8 to i32
  %v95 = arith.muli %v37#0, %v5 : i32
  %v96 = arith.extsi %v87 : i16 to i64
  %v97 = arith.constant 4 : index
  %v98 = arith.muli %gid, %v97 : index
  %v99 = arith.constant 0 : index
  %v100 = arith.addi %v98, %v99 : index
  memref.store %v96, %out[%v100] : memref<?xi64>
  %v101 = arith.constant 1410658910 : i32
  %v102 = arith.extsi %v101 : i32 to i64
  %v103 = arith.constant 4 : index
  %v104 = arith.muli %gid, %v103 : index
  %v105 = arith.constant 1 : index
  %v106 = arith.addi %v104, %v105 : index
  memref.store %v102, %out[%v106] : memref<?xi64>
  %v107 = arith.constant 4 : index
  %v108 = arith.muli %gid, %v107 : index
  %v109 = arith.constant 2 : index
  %v110 = arith.addi %v108, %v109 : index
  memref.store %v92, %out[%v110] : memref<?xi64>
  %v111 = arith.extsi %v77 : i16 to i64
  %v112 = arith.constant 4 : index
  %v113 = arith.muli %gid, %v112 : index
  %v114 = arith.constant 3 : index
  %v115 = arith.addi %v113, %v114 : index
  memref.store %v111, %out[%v115] : memref<?xi64>
  wave.terminate
}
func.func @main() {
  return
}

// KNOWN BUG (found 2026-12-07 by scripts/differential-lane-vectors --wave
// --vulkan, seed 112): the SPIR-V lowering of this wave program's stage
// kernel @c__s1 fails: an arith.cmpi ule whose operand is a frame field
// load of an i32 reaches the conversion as (i8, i32) (upstream's "bitwidth
// emulation is not implemented yet on unsigned op"; the IR dump after the
// failure has a memref.load of a memref<1xi32> view typed i8), so a frame
// field load is retyped wrongly when i8/i16 fields share the frame
// (rewriteFrameAccess or widenNarrowIntegers). The CPU runs it. XFAIL until
// fixed.
// XFAIL: *
// RUN: sluice-opt --sluice-wave-to-gpu %s | sluice-opt --sluice-gpu-to-spirv -o /dev/null
wave.coroutine @c(%lane: i32)
    bind(%ini: memref<?xi32> readonly, %inf: memref<?xf32> readonly,
         %out: memref<?xi64>, %acc: memref<?xi64>) {
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  %gid = arith.index_cast %lane : i32 to index
  %v1 = arith.extsi %lane : i32 to i64
  %v2 = arith.remui %gid, %c256 : index
  %v3 = memref.load %ini[%v2] : memref<?xi32>
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
    %v18 = arith.constant 255 : i64
    %v19 = arith.andi %v1, %v18 : i64
    %v20 = arith.index_castui %v19 : i64 to index
    %v21 = memref.load %ini[%v20] : memref<?xi32>
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
      %v33 = arith.constant 0 : index
      memref.store %v5, %v32[%v33] : memref<2xi32>
      %v34 = arith.constant 1 : index
      %v35 = arith.constant 0 : i32
      memref.store %v35, %v32[%v34] : memref<2xi32>
      scf.execute_region {
        %v36 = arith.constant 7 : i8
        %v37 = arith.andi %v17, %v36 : i8
        %v38 = arith.shrsi %v17, %v37 : i8
        %v39 = arith.constant 0 : i32
        %v40 = arith.constant 16383 : i32
        %v41 = arith.constant 1 : i32
        %v42 = arith.andi %v39, %v40 : i32
        %v43 = arith.ori %v42, %v41 : i32
        %v44 = arith.divsi %v21, %v43 : i32
        %v45 = arith.constant -1 : i16
        %v46 = arith.constant 255 : i16
        %v47 = arith.cmpi eq, %v45, %v46 : i16
        %v48 = arith.constant -1 : i16
        %v49 = arith.constant -1 : i16
        %v50 = arith.select %v47, %v48, %v49 : i16
        cf.cond_br %v7, ^bb35_2(%v1 : i64), ^bb35_4
      ^bb35_1:
        %v52 = arith.cmpi sgt, %v1, %v1 : i64
        %v53 = arith.constant 255 : i16
        %v54 = arith.constant 7 : i16
        %v55 = arith.select %v52, %v53, %v54 : i16
        cf.br ^bb35_4
      ^bb35_2(%v56: i64):
        %v57 = memref.alloca() : memref<4xi32>
        %v58 = arith.constant 0 : index
        memref.store %v5, %v57[%v58] : memref<4xi32>
        %v59 = arith.constant 1 : index
        memref.store %v30, %v57[%v59] : memref<4xi32>
        %v60 = arith.constant 2 : index
        memref.store %v30, %v57[%v60] : memref<4xi32>
        %v61 = arith.constant 3 : index
        memref.store %v30, %v57[%v61] : memref<4xi32>
        %v62 = arith.constant 3 : i32
        %v63 = arith.andi %v3, %v62 : i32
        %v64 = arith.index_castui %v63 : i32 to index
        memref.store %v21, %v57[%v64] : memref<4xi32>
        %v65 = arith.constant 3 : i64
        %v66 = arith.andi %v1, %v65 : i64
        %v67 = arith.index_castui %v66 : i64 to index
        %v68 = memref.load %v57[%v67] : memref<4xi32>
        %v69 = arith.constant 929907250991045979 : i64
        %v70 = arith.minui %v56, %v69 : i64
        %v71 = arith.constant 1 : index
        memref.store %v68, %v32[%v71] : memref<2xi32>
        %v72 = arith.constant 201 : i16
        cf.cond_br %v7, ^bb35_4, ^bb35_3(%v72 : i16)
      ^bb35_3(%v73: i16):
        %v74 = arith.constant false
        %v75 = arith.extui %v74 : i1 to i32
        %v76 = arith.constant 1 : i32
        %v77 = arith.andi %v30, %v76 : i32
        %v78 = arith.index_castui %v77 : i32 to index
        memref.store %v75, %v32[%v78] : memref<2xi32>
        cf.cond_br %v7, ^bb35_4, ^bb35_4
      ^bb35_4:
        %v80 = arith.constant -1320868418 : i32
        %v81 = arith.constant 255 : i32
        %v82 = arith.andi %v80, %v81 : i32
        %v83 = arith.index_castui %v82 : i32 to index
        %v84 = memref.load %ini[%v83] : memref<?xi32>
        %v85 = arith.constant 0 : index
        memref.store %v84, %v32[%v85] : memref<2xi32>
        scf.yield
      }
      %v86 = arith.constant 0 : index
      %v87 = memref.load %v32[%v86] : memref<2xi32>
      %v88 = arith.constant 1 : index
      %v89 = memref.load %v32[%v88] : memref<2xi32>
      %v90 = arith.constant 0 : index
      %v91 = arith.constant 1 : index
      %v92 = arith.constant 5 : i32
      %v93 = arith.andi %v89, %v92 : i32
      %v94 = arith.index_castui %v93 : i32 to index
      %v95 = scf.for %v96 = %v90 to %v94 step %v91 iter_args(%v97 = %v1) -> (i64) {
        %v98 = arith.index_cast %v96 : index to i32
        wave.suspend "s1" sort_by %v97 : i64
        %v99 = arith.constant 0 : index
        %v100 = memref.atomic_rmw addi %v1, %acc[%v99] : (i64, memref<?xi64>) -> i64
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
  %v106 = arith.constant 7 : i16
  %v107 = arith.constant 255 : i16
  %v108 = arith.cmpi uge, %v106, %v107 : i16
  %v109 = arith.select %v108, %v11#1, %v11#1 : i8
  %v110 = scf.if %v7 -> (i16) {
    %v111 = arith.constant 1 : i8
    %v112 = arith.ori %v11#1, %v111 : i8
    %v113 = arith.divui %v11#1, %v112 : i8
    %v114 = arith.constant 255 : i64
    %v115 = arith.andi %v1, %v114 : i64
    %v116 = arith.index_castui %v115 : i64 to index
    %v117 = memref.load %ini[%v116] : memref<?xi32>
    %v118 = arith.constant 0 : i16
    scf.yield %v118 : i16
  } else {
    %v119 = math.cttz %v5 : i32
    %v120 = arith.constant 17 : index
    %v121 = arith.constant 33 : index
    %v122 = arith.constant 33 : index
    %v123 = arith.muli %gid, %v120 : index
    %v124 = arith.addi %v123, %v121 : index
    %v125 = arith.remui %v124, %v122 : index
    %v126 = arith.constant 132 : index
    %v127 = arith.addi %v125, %v126 : index
    memref.store %v1, %out[%v127] : memref<?xi64>
    %v128 = math.cttz %lane : i32
    %v129 = arith.constant -1 : i16
    scf.yield %v129 : i16
  }
  %v130 = arith.cmpi ule, %lane, %v11#0 : i32
  %v131 = arith.select %v130, %v5, %lane : i32
  %v132 = arith.constant 0 : i32
  %v133 = arith.muli %lane, %v132 : i32
  %v134 = memref.alloca() : memref<2xi16>
  %v135 = arith.constant 0 : index
  memref.store %v110, %v134[%v135] : memref<2xi16>
  %v136 = arith.constant 1 : index
  memref.store %v110, %v134[%v136] : memref<2xi16>
  scf.execute_region {
    %v137 = memref.alloca() : memref<4xi64>
    %v138 = arith.constant 0 : index
    %v139 = arith.constant -622 : i64
    memref.store %v139, %v137[%v138] : memref<4xi64>
    %v140 = arith.constant 1 : index
    memref.store %v1, %v137[%v140] : memref<4xi64>
    %v141 = arith.constant 2 : index
    memref.store %v1, %v137[%v141] : memref<4xi64>
    %v142 = arith.constant 3 : index
    %v143 = arith.constant -1 : i64
    memref.store %v143, %v137[%v142] : memref<4xi64>
    %v144 = arith.constant -3111512196140079783 : i64
    %v145 = arith.constant 3 : i64
    %v146 = arith.andi %v144, %v145 : i64
    %v147 = arith.index_castui %v146 : i64 to index
    %v148 = memref.load %v137[%v147] : memref<4xi64>
    %v149 = arith.constant 1 : i64
    %v150 = arith.ori %v1, %v149 : i64
    %v151 = arith.divui %v1, %v150 : i64
    %v152 = memref.alloca() : memref<4xi32>
    %v153 = arith.constant 0 : index
    memref.store %lane, %v152[%v153] : memref<4xi32>
    %v154 = arith.constant 1 : index
    memref.store %v3, %v152[%v154] : memref<4xi32>
    %v155 = arith.constant 2 : index
    memref.store %v133, %v152[%v155] : memref<4xi32>
    %v156 = arith.constant 3 : index
    %v157 = arith.constant 7 : i32
    memref.store %v157, %v152[%v156] : memref<4xi32>
    %v158 = arith.constant 3 : i64
    %v159 = arith.andi %v151, %v158 : i64
    %v160 = arith.index_castui %v159 : i64 to index
    %v161 = memref.load %v152[%v160] : memref<4xi32>
    %v162 = arith.constant 0 : index
    memref.store %v110, %v134[%v162] : memref<2xi16>
    cf.br ^bb136_3
  ^bb136_1(%v163: i8):
    %v164 = arith.constant 255 : i64
    %v165 = arith.andi %v1, %v164 : i64
    %v166 = arith.index_castui %v165 : i64 to index
    %v167 = memref.load %ini[%v166] : memref<?xi32>
    %v168 = arith.maxui %v1, %v1 : i64
    %v169 = arith.trunci %v110 : i16 to i8
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
      %v180 = arith.minui %v178, %v131 : i32
      %v181 = arith.constant 1 : i32
      %v182 = arith.extui %v181 : i32 to i64
      %v183:2 = scf.if %v130 -> (i16, i16) {
        %v184 = arith.constant 255 : i64
        %v185 = arith.andi %v1, %v184 : i64
        %v186 = arith.index_castui %v185 : i64 to index
        %v187 = memref.load %ini[%v186] : memref<?xi32>
        scf.yield %v170, %v170 : i16, i16
      } else {
        %v188 = arith.constant 255 : i64
        %v189 = arith.andi %v1, %v188 : i64
        %v190 = arith.index_castui %v189 : i64 to index
        %v191 = memref.load %ini[%v190] : memref<?xi32>
        %v192 = arith.extui %v108 : i1 to i32
        scf.yield %v170, %v110 : i16, i16
      }
      %v193 = arith.constant 1 : i32
      %v194 = arith.subi %v178, %v193 : i32
      scf.yield %v194, %v179 : i32, i8
    }
    cf.br ^bb136_3
  ^bb136_3:
    %v196 = arith.cmpi sle, %v11#0, %v3 : i32
    %v197 = arith.select %v196, %lane, %v131 : i32
    %v198 = arith.constant 7 : index
    %v199 = arith.constant 909 : index
    %v200 = arith.constant 33 : index
    %v201 = arith.muli %gid, %v198 : index
    %v202 = arith.addi %v201, %v199 : index
    %v203 = arith.remui %v202, %v200 : index
    %v204 = arith.constant 165 : index
    %v205 = arith.addi %v203, %v204 : index
    memref.store %v1, %out[%v205] : memref<?xi64>
    scf.yield
  }
  %v206 = arith.constant 0 : index
  %v207 = memref.load %v134[%v206] : memref<2xi16>
  %v208 = arith.constant 1 : index
  %v209 = memref.load %v134[%v208] : memref<2xi16>
  %v210 = scf.if %v7 -> (i16) {
    scf.if %v130 {
      %v212 = arith.constant 0 : index
      %v213 = arith.constant 1 : index
      %v214 = arith.constant 1 : i32
      %v215 = arith.constant 5 : i32
      %v216 = arith.andi %v214, %v215 : i32
      %v217 = arith.index_castui %v216 : i32 to index
      %v218 = scf.for %v219 = %v212 to %v217 step %v213 iter_args(%v220 = %v133) -> (i32) {
        %v221 = arith.index_cast %v219 : index to i32
        %v222 = arith.cmpi eq, %v11#1, %v11#1 : i8
        %v223 = arith.select %v222, %v1, %v1 : i64
        scf.yield %v221 : i32
      }
      %v224 = math.absi %v1 : i64
      %v225 = arith.constant 0 : i64
      %v226 = arith.constant 17 : index
      %v227 = arith.constant 727 : index
      %v228 = arith.constant 33 : index
      %v229 = arith.muli %gid, %v226 : index
      %v230 = arith.addi %v229, %v227 : index
      %v231 = arith.remui %v230, %v228 : index
      %v232 = arith.constant 198 : index
      %v233 = arith.addi %v231, %v232 : index
      memref.store %v225, %out[%v233] : memref<?xi64>
      %v234 = arith.constant 0 : index
      %v235 = memref.atomic_rmw addi %v1, %acc[%v234] : (i64, memref<?xi64>) -> i64
      scf.yield
    } else {
      %v236 = arith.cmpi sle, %v110, %v110 : i16
      %v237 = arith.select %v236, %v133, %v133 : i32
      wave.suspend "s2"
      %v238 = arith.constant 7 : i32
      %v239 = arith.andi %v237, %v238 : i32
      %v240:2 = scf.while (%v241 = %v239, %v242 = %v1) : (i32, i64) -> (i32, i64) {
        %v243 = arith.constant 0 : i32
        %v244 = arith.cmpi sgt, %v241, %v243 : i32
        scf.condition(%v244) %v241, %v242 : i32, i64
      } do {
      ^bb0(%v245: i32, %v246: i64):
        %v247 = arith.maxui %v1, %v1 : i64
        %v248 = arith.constant 1 : i32
        %v249 = arith.subi %v245, %v248 : i32
        scf.yield %v249, %v247 : i32, i64
      }
      scf.yield
    }
    %v250 = memref.alloca() : memref<2xi64>
    %v251 = arith.constant 0 : index
    memref.store %v1, %v250[%v251] : memref<2xi64>
    %v252 = arith.constant 1 : index
    memref.store %v1, %v250[%v252] : memref<2xi64>
    scf.execute_region {
      %v253 = arith.constant 1 : index
      memref.store %v1, %v250[%v253] : memref<2xi64>
      cf.cond_br %v7, ^bb252_3(%v1 : i64), ^bb252_4(%v207 : i16)
    ^bb252_1:
      %v255 = arith.muli %v11#1, %v11#1 : i8
      %v256 = arith.trunci %v1 : i64 to i8
      %v257 = arith.constant -344 : i64
      %v258 = arith.constant 1 : index
      memref.store %v257, %v250[%v258] : memref<2xi64>
      cf.cond_br %v7, ^bb252_2, ^bb252_3(%v1 : i64)
    ^bb252_2:
      %v260 = arith.constant 255 : i32
      %v261 = arith.andi %lane, %v260 : i32
      %v262 = arith.index_castui %v261 : i32 to index
      %v263 = memref.load %ini[%v262] : memref<?xi32>
      %v264 = scf.if %v130 -> (i8) {
        %v265 = arith.extui %v7 : i1 to i32
        %v266 = arith.cmpi ne, %lane, %v265 : i32
        %v267 = arith.select %v266, %v109, %v11#1 : i8
        %v268 = arith.constant 16383 : i64
        %v269 = arith.constant 1 : i64
        %v270 = arith.andi %v1, %v268 : i64
        %v271 = arith.ori %v270, %v269 : i64
        %v272 = arith.ceildivsi %v1, %v271 : i64
        %v273 = arith.constant 255 : i64
        %v274 = arith.andi %v1, %v273 : i64
        %v275 = arith.index_castui %v274 : i64 to index
        %v276 = memref.load %ini[%v275] : memref<?xi32>
        scf.yield %v267 : i8
      } else {
        %v277 = arith.cmpi eq, %v1, %v1 : i64
        %v278 = arith.select %v277, %v1, %v1 : i64
        scf.yield %v109 : i8
      }
      cf.cond_br %v130, ^bb252_4(%v110 : i16), ^bb252_5(%v11#0 : i32)
    ^bb252_3(%v279: i64):
      %v280 = arith.constant 255 : i64
      %v281 = arith.andi %v279, %v280 : i64
      %v282 = arith.index_castui %v281 : i64 to index
      %v283 = memref.load %ini[%v282] : memref<?xi32>
      %v284 = arith.extui %v7 : i1 to i32
      %v285 = arith.constant 1 : index
      memref.store %v279, %v250[%v285] : memref<2xi64>
      %v286 = arith.constant -1 : i32
      cf.cond_br %v7, ^bb252_5(%v284 : i32), ^bb252_5(%v286 : i32)
    ^bb252_4(%v287: i16):
      %v288 = arith.constant false
      %v289 = arith.constant -1593057893 : i32
      cf.cond_br %v288, ^bb252_5(%v289 : i32), ^bb252_5(%v131 : i32)
    ^bb252_5(%v290: i32):
      %v291 = arith.extsi %v110 : i16 to i64
      %v292 = arith.constant 1 : index
      memref.store %v291, %v250[%v292] : memref<2xi64>
      scf.yield
    }
    %v293 = arith.constant 0 : index
    %v294 = memref.load %v250[%v293] : memref<2xi64>
    %v295 = arith.constant 1 : index
    %v296 = memref.load %v250[%v295] : memref<2xi64>
    %v297 = arith.constant 0 : index
    %v298 = arith.constant 1 : index
    %v299 = arith.constant 4 : index
    %v300:2 = scf.for %v301 = %v297 to %v299 step %v298 iter_args(%v302 = %v11#1, %v303 = %v1) -> (i8, i64) {
      %v304 = arith.index_cast %v301 : index to i32
      wave.suspend "s3"
      %v305 = arith.constant 0 : index
      %v306 = arith.constant 1 : index
      %v307 = arith.constant 3 : index
      %v308:2 = scf.for %v309 = %v305 to %v307 step %v306 iter_args(%v310 = %v209, %v311 = %v303) -> (i16, i64) {
        %v312 = arith.index_cast %v309 : index to i32
        %v313 = arith.subi %v11#0, %v133 : i32
        %v314 = arith.cmpi sgt, %v313, %v313 : i32
        %v315 = arith.constant -154 : i32
        %v316 = arith.select %v314, %v131, %v315 : i32
        %v317 = arith.constant 16383 : i64
        %v318 = arith.constant 1 : i64
        %v319 = arith.andi %v311, %v317 : i64
        %v320 = arith.ori %v319, %v318 : i64
        %v321 = arith.remsi %v311, %v320 : i64
        scf.yield %v310, %v321 : i16, i64
      }
      %v322 = arith.constant 255 : i32
      %v323 = arith.andi %v11#0, %v322 : i32
      %v324 = arith.index_castui %v323 : i32 to index
      %v325 = memref.load %ini[%v324] : memref<?xi32>
      scf.yield %v302, %v308#1 : i8, i64
    }
    scf.yield %v209 : i16
  } else {
    scf.yield %v209 : i16
  }
  %v326 = arith.trunci %v1 : i64 to i32
  %v327 = arith.constant -989 : i32
  %v328 = arith.addi %v327, %v326 : i32
  %v329 = memref.alloca() : memref<2xi16>
  %v330 = arith.constant 0 : index
  memref.store %v110, %v329[%v330] : memref<2xi16>
  %v331 = arith.constant 1 : index
  memref.store %v210, %v329[%v331] : memref<2xi16>
  scf.execute_region {
    %v332 = scf.if %v7 -> (i64) {
      %v333 = arith.constant -1 : i64
      %v334 = math.absi %v333 : i64
      %v335 = arith.subi %v1, %v1 : i64
      %v336 = arith.maxsi %v11#1, %v11#1 : i8
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
        %v348 = arith.trunci %v1 : i64 to i32
        %v349 = arith.trunci %v1 : i64 to i16
        %v350 = arith.cmpi ugt, %v338, %v338 : i64
        %v351 = arith.select %v350, %v348, %v346 : i32
        %v352 = arith.constant 1 : i32
        %v353 = arith.subi %v346, %v352 : i32
        scf.yield %v353, %v349 : i32, i16
      }
      scf.yield %v338 : i64
    }
    %v354 = arith.cmpi sgt, %v332, %v332 : i64
    %v355 = arith.select %v354, %v11#1, %v11#1 : i8
    %v356 = arith.constant 1 : index
    memref.store %v210, %v329[%v356] : memref<2xi16>
    cf.cond_br %v354, ^bb331_2(%v1 : i64), ^bb331_1(%v1 : i64)
  ^bb331_1(%v357: i64):
    %v358 = arith.constant 255 : i64
    %v359 = arith.andi %v1, %v358 : i64
    %v360 = arith.index_castui %v359 : i64 to index
    %v361 = memref.load %ini[%v360] : memref<?xi32>
    %v362:2 = scf.if %v7 -> (i16, i64) {
      %v363 = arith.cmpi ne, %v210, %v110 : i16
      %v364 = arith.select %v363, %v328, %v361 : i32
      %v365 = arith.constant 7 : i32
      %v366 = arith.andi %v364, %v365 : i32
      %v367:2 = scf.while (%v368 = %v366, %v369 = %v364) : (i32, i32) -> (i32, i32) {
        %v370 = arith.constant 0 : i32
        %v371 = arith.cmpi sgt, %v368, %v370 : i32
        scf.condition(%v371) %v368, %v369 : i32, i32
      } do {
      ^bb0(%v372: i32, %v373: i32):
        %v374 = memref.alloca() : memref<4xi32>
        %v375 = arith.constant 0 : index
        %v376 = arith.constant 7 : i32
        memref.store %v376, %v374[%v375] : memref<4xi32>
        %v377 = arith.constant 1 : index
        memref.store %v372, %v374[%v377] : memref<4xi32>
        %v378 = arith.constant 2 : index
        memref.store %v364, %v374[%v378] : memref<4xi32>
        %v379 = arith.constant 3 : index
        %v380 = arith.constant 255 : i32
        memref.store %v380, %v374[%v379] : memref<4xi32>
        %v381 = arith.constant 3 : i32
        %v382 = arith.andi %v326, %v381 : i32
        %v383 = arith.index_castui %v382 : i32 to index
        memref.store %v373, %v374[%v383] : memref<4xi32>
        %v384 = arith.constant 3 : i64
        %v385 = arith.andi %v1, %v384 : i64
        %v386 = arith.index_castui %v385 : i64 to index
        memref.store %v373, %v374[%v386] : memref<4xi32>
        %v387 = arith.constant 3 : i32
        %v388 = arith.andi %v373, %v387 : i32
        %v389 = arith.index_castui %v388 : i32 to index
        %v390 = memref.load %v374[%v389] : memref<4xi32>
        %v391 = arith.extui %v363 : i1 to i32
        %v392 = arith.constant 1 : i32
        %v393 = arith.ori %v364, %v392 : i32
        %v394 = arith.remui %v390, %v393 : i32
        %v395 = arith.constant 1 : i32
        %v396 = arith.subi %v372, %v395 : i32
        scf.yield %v396, %v394 : i32, i32
      }
      %v397 = arith.constant 0 : index
      %v398 = arith.constant 1 : index
      %v399 = arith.constant 2 : index
      %v400:2 = scf.for %v401 = %v397 to %v399 step %v398 iter_args(%v402 = %v361, %v403 = %v328) -> (i32, i32) {
        %v404 = arith.index_cast %v401 : index to i32
        %v405 = arith.constant -1 : i8
        %v406 = arith.constant 1 : i8
        %v407 = arith.ori %v11#1, %v406 : i8
        %v408 = arith.ceildivui %v405, %v407 : i8
        %v409 = arith.minui %v403, %v403 : i32
        %v410 = arith.extui %v130 : i1 to i32
        scf.yield %v409, %v410 : i32, i32
      }
      %v411 = arith.constant -1 : i8
      %v412 = arith.addi %v411, %v11#1 : i8
      scf.yield %v110, %v1 : i16, i64
    } else {
      scf.if %v130 {
        %v414 = arith.constant -513 : i32
        %v415 = arith.minui %v414, %v361 : i32
        %v416 = arith.constant 0 : index
        %v417 = memref.atomic_rmw addi %v357, %acc[%v416] : (i64, memref<?xi64>) -> i64
        %v418 = arith.constant 0 : i8
        %v419 = arith.cmpi ne, %v109, %v418 : i8
        %v420 = arith.select %v419, %v110, %v110 : i16
        %v421 = arith.constant 0 : index
        %v422 = memref.atomic_rmw addi %v1, %acc[%v421] : (i64, memref<?xi64>) -> i64
        scf.yield
      } else {
        %v423 = arith.extsi %v210 : i16 to i32
        %v424 = arith.constant 16383 : i64
        %v425 = arith.constant 1 : i64
        %v426 = arith.andi %v1, %v424 : i64
        %v427 = arith.ori %v426, %v425 : i64
        %v428 = arith.divsi %v357, %v427 : i64
        scf.yield
      }
      %v429 = memref.alloca() : memref<2xi64>
      %v430 = arith.constant 0 : index
      memref.store %v1, %v429[%v430] : memref<2xi64>
      %v431 = arith.constant 1 : index
      memref.store %v1, %v429[%v431] : memref<2xi64>
      scf.execute_region {
        %v432 = arith.constant 0 : index
        %v433 = memref.atomic_rmw addi %v1, %acc[%v432] : (i64, memref<?xi64>) -> i64
        %v434 = memref.alloca() : memref<4xi32>
        %v435 = arith.constant 0 : index
        memref.store %v328, %v434[%v435] : memref<4xi32>
        %v436 = arith.constant 1 : index
        memref.store %v361, %v434[%v436] : memref<4xi32>
        %v437 = arith.constant 2 : index
        %v438 = arith.constant -1181228886 : i32
        memref.store %v438, %v434[%v437] : memref<4xi32>
        %v439 = arith.constant 3 : index
        memref.store %v361, %v434[%v439] : memref<4xi32>
        %v440 = arith.constant 3 : i32
        %v441 = arith.andi %v361, %v440 : i32
        %v442 = arith.index_castui %v441 : i32 to index
        %v443 = memref.load %v434[%v442] : memref<4xi32>
        cf.cond_br %v7, ^bb431_2(%v210 : i16), ^bb431_1(%v109 : i8)
      ^bb431_1(%v444: i8):
        cf.cond_br %v7, ^bb431_2(%v207 : i16), ^bb431_2(%v210 : i16)
      ^bb431_2(%v445: i16):
        %v446 = arith.constant 0 : index
        memref.store %v1, %v429[%v446] : memref<2xi64>
        scf.yield
      }
      %v447 = arith.constant 0 : index
      %v448 = memref.load %v429[%v447] : memref<2xi64>
      %v449 = arith.constant 1 : index
      %v450 = memref.load %v429[%v449] : memref<2xi64>
      %v451 = arith.cmpi ugt, %v328, %v328 : i32
      %v452 = arith.constant -1 : i16
      %v453 = arith.select %v451, %v207, %v452 : i16
      scf.yield %v453, %v450 : i16, i64
    }
    %v454 = arith.constant 1 : i64
    %v455 = arith.andi %v1, %v454 : i64
    %v456 = arith.index_castui %v455 : i64 to index
    memref.store %v362#0, %v329[%v456] : memref<2xi16>
    cf.cond_br %v7, ^bb331_2(%v357 : i64), ^bb331_2(%v1 : i64)
  ^bb331_2(%v457: i64):
    %v458 = scf.if %v130 -> (i32) {
      %v459 = arith.constant 255 : i64
      %v460 = arith.andi %v1, %v459 : i64
      %v461 = arith.index_castui %v460 : i64 to index
      %v462 = memref.load %ini[%v461] : memref<?xi32>
      %v463 = arith.constant 7 : index
      %v464 = arith.constant 346 : index
      %v465 = arith.constant 33 : index
      %v466 = arith.muli %gid, %v463 : index
      %v467 = arith.addi %v466, %v464 : index
      %v468 = arith.remui %v467, %v465 : index
      %v469 = arith.constant 231 : index
      %v470 = arith.addi %v468, %v469 : index
      memref.store %v1, %out[%v470] : memref<?xi64>
      %v471:2 = scf.if %v130 -> (i16, i32) {
        %v472 = arith.constant 31 : i32
        %v473 = arith.andi %v328, %v472 : i32
        %v474 = arith.shrsi %v462, %v473 : i32
        scf.yield %v110, %v462 : i16, i32
      } else {
        %v475 = arith.constant -415 : i64
        %v476 = arith.xori %v457, %v475 : i64
        %v477 = arith.constant 16383 : i64
        %v478 = arith.constant 1 : i64
        %v479 = arith.andi %v1, %v477 : i64
        %v480 = arith.ori %v479, %v478 : i64
        %v481 = arith.floordivsi %v1, %v480 : i64
        %v482 = arith.constant 1 : i32
        %v483 = arith.ori %v462, %v482 : i32
        %v484 = arith.ceildivui %v133, %v483 : i32
        scf.yield %v207, %v484 : i16, i32
      }
      scf.yield %v462 : i32
    } else {
      %v485 = arith.subi %v457, %v1 : i64
      %v486 = memref.alloca() : memref<4xi64>
      %v487 = arith.constant 0 : index
      memref.store %v485, %v486[%v487] : memref<4xi64>
      %v488 = arith.constant 1 : index
      memref.store %v457, %v486[%v488] : memref<4xi64>
      %v489 = arith.constant 2 : index
      memref.store %v1, %v486[%v489] : memref<4xi64>
      %v490 = arith.constant 3 : index
      memref.store %v1, %v486[%v490] : memref<4xi64>
      %v491 = arith.constant 3 : i32
      %v492 = arith.andi %v133, %v491 : i32
      %v493 = arith.index_castui %v492 : i32 to index
      memref.store %v1, %v486[%v493] : memref<4xi64>
      %v494 = arith.constant 3 : i64
      %v495 = arith.andi %v1, %v494 : i64
      %v496 = arith.index_castui %v495 : i64 to index
      %v497 = memref.load %v486[%v496] : memref<4xi64>
      scf.yield %v326 : i32
    }
    scf.yield
  }
  %v498 = arith.constant 0 : index
  %v499 = memref.load %v329[%v498] : memref<2xi16>
  %v500 = arith.constant 1 : index
  %v501 = memref.load %v329[%v500] : memref<2xi16>
  %v502:2 = scf.if %v130 -> (i8, i64) {
    %v503 = arith.extsi %v210 : i16 to i32
    %v504 = memref.alloca() : memref<4xi32>
    %v505 = arith.constant 0 : index
    memref.store %v503, %v504[%v505] : memref<4xi32>
    %v506 = arith.constant 1 : index
    memref.store %v326, %v504[%v506] : memref<4xi32>
    %v507 = arith.constant 2 : index
    memref.store %v503, %v504[%v507] : memref<4xi32>
    %v508 = arith.constant 3 : index
    memref.store %v503, %v504[%v508] : memref<4xi32>
    %v509 = arith.constant 3 : i32
    %v510 = arith.andi %v131, %v509 : i32
    %v511 = arith.index_castui %v510 : i32 to index
    memref.store %v133, %v504[%v511] : memref<4xi32>
    %v512 = arith.constant 3 : i32
    %v513 = arith.andi %v328, %v512 : i32
    %v514 = arith.index_castui %v513 : i32 to index
    %v515 = memref.load %v504[%v514] : memref<4xi32>
    wave.suspend "s4"
    %v516 = math.absi %lane : i32
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
      %v526 = arith.constant 7 : i32
      %v527 = arith.andi %v524, %v526 : i32
      %v528:2 = scf.while (%v529 = %v527, %v530 = %v501) : (i32, i16) -> (i32, i16) {
        %v531 = arith.constant 0 : i32
        %v532 = arith.cmpi sgt, %v529, %v531 : i32
        scf.condition(%v532) %v529, %v530 : i32, i16
      } do {
      ^bb0(%v533: i32, %v534: i16):
        %v535 = memref.alloca() : memref<4xi64>
        %v536 = arith.constant 0 : index
        memref.store %v1, %v535[%v536] : memref<4xi64>
        %v537 = arith.constant 1 : index
        %v538 = arith.constant 7 : i64
        memref.store %v538, %v535[%v537] : memref<4xi64>
        %v539 = arith.constant 2 : index
        memref.store %v525, %v535[%v539] : memref<4xi64>
        %v540 = arith.constant 3 : index
        memref.store %v1, %v535[%v540] : memref<4xi64>
        %v541 = arith.constant 3 : i32
        %v542 = arith.andi %v133, %v541 : i32
        %v543 = arith.index_castui %v542 : i32 to index
        %v544 = arith.constant 255 : i64
        memref.store %v544, %v535[%v543] : memref<4xi64>
        %v545 = arith.constant 3 : i32
        %v546 = arith.andi %v533, %v545 : i32
        %v547 = arith.index_castui %v546 : i32 to index
        %v548 = memref.load %v535[%v547] : memref<4xi64>
        %v549 = arith.constant 2100278538704266620 : i64
        %v550 = arith.minui %v548, %v549 : i64
        %v551 = arith.cmpi ugt, %v533, %v11#0 : i32
        %v552 = arith.constant 0 : i32
        %v553 = arith.constant 0 : i32
        %v554 = arith.select %v551, %v552, %v553 : i32
        %v555 = arith.constant 1 : i32
        %v556 = arith.subi %v533, %v555 : i32
        scf.yield %v556, %v534 : i32, i16
      }
      %v557:2 = scf.if %v7 -> (i64, i64) {
        %v558 = arith.constant 0 : index
        %v559 = memref.atomic_rmw addi %v1, %acc[%v558] : (i64, memref<?xi64>) -> i64
        %v560 = arith.cmpi sgt, %v1, %v525 : i64
        %v561 = arith.select %v560, %v1, %v525 : i64
        %v562 = arith.cmpi uge, %v109, %v11#1 : i8
        %v563 = arith.select %v562, %v207, %v501 : i16
        %v564 = arith.extui %v7 : i1 to i32
        scf.yield %v561, %v561 : i64, i64
      } else {
        wave.suspend "s5"
        %v565 = math.cttz %v11#1 : i8
        scf.yield %v1, %v1 : i64, i64
      }
      scf.if %v7 {
        %v567 = arith.subi %v3, %v528#0 : i32
        %v568 = memref.alloca() : memref<4xi64>
        %v569 = arith.constant 0 : index
        memref.store %v1, %v568[%v569] : memref<4xi64>
        %v570 = arith.constant 1 : index
        memref.store %v557#1, %v568[%v570] : memref<4xi64>
        %v571 = arith.constant 2 : index
        memref.store %v1, %v568[%v571] : memref<4xi64>
        %v572 = arith.constant 3 : index
        memref.store %v525, %v568[%v572] : memref<4xi64>
        %v573 = arith.constant 3 : i32
        %v574 = arith.andi %v528#0, %v573 : i32
        %v575 = arith.index_castui %v574 : i32 to index
        memref.store %v525, %v568[%v575] : memref<4xi64>
        %v576 = arith.constant 3 : i64
        %v577 = arith.andi %v1, %v576 : i64
        %v578 = arith.index_castui %v577 : i64 to index
        %v579 = memref.load %v568[%v578] : memref<4xi64>
        %v580 = arith.cmpi ule, %v579, %v579 : i64
        %v581 = arith.select %v580, %v528#1, %v528#1 : i16
        %v582 = arith.cmpi sgt, %v328, %v328 : i32
        %v583 = arith.select %v582, %v528#1, %v581 : i16
        %v584 = arith.constant 0 : index
        %v585 = memref.atomic_rmw addi %v557#1, %acc[%v584] : (i64, memref<?xi64>) -> i64
        scf.yield
      } else {
        scf.yield
      }
      %v586 = arith.constant 1 : i32
      %v587 = arith.subi %v524, %v586 : i32
      scf.yield %v587, %v557#1 : i32, i64
    }
    %v588 = arith.minui %v328, %v328 : i32
    scf.yield %v11#1, %v519#1 : i8, i64
  }
  scf.if %v7 {
    %v590 = arith.constant 0 : index
    %v591 = arith.constant 1 : index
    %v592 = arith.constant 1 : index
    %v593:2 = scf.for %v594 = %v590 to %v592 step %v591 iter_args(%v595 = %v1, %v596 = %v502#1) -> (i64, i64) {
      %v597 = arith.index_cast %v594 : index to i32
      %v598 = memref.alloca() : memref<4xi64>
      %v599 = arith.constant 0 : index
      memref.store %v502#1, %v598[%v599] : memref<4xi64>
      %v600 = arith.constant 1 : index
      memref.store %v596, %v598[%v600] : memref<4xi64>
      %v601 = arith.constant 2 : index
      memref.store %v596, %v598[%v601] : memref<4xi64>
      %v602 = arith.constant 3 : index
      memref.store %v596, %v598[%v602] : memref<4xi64>
      %v603 = arith.constant 3 : i64
      %v604 = arith.andi %v595, %v603 : i64
      %v605 = arith.index_castui %v604 : i64 to index
      %v606 = memref.load %v598[%v605] : memref<4xi64>
      scf.yield %v606, %v595 : i64, i64
    }
    %v607 = arith.extsi %v11#1 : i8 to i16
    %v608 = arith.constant 0 : index
    %v609 = memref.atomic_rmw addi %v593#0, %acc[%v608] : (i64, memref<?xi64>) -> i64
    scf.yield
  } else {
    %v610 = arith.constant 255 : i64
    %v611 = arith.andi %v1, %v610 : i64
    %v612 = arith.index_castui %v611 : i64 to index
    %v613 = memref.load %ini[%v612] : memref<?xi32>
    scf.yield
  }
  %v614 = arith.constant -395 : i64
  %v615 = arith.cmpi ugt, %v1, %v614 : i64
  %v616 = arith.select %v615, %v110, %v499 : i16
  %v617 = arith.addi %v1, %v502#1 : i64
  %v618 = arith.extsi %v110 : i16 to i64
  %v619 = arith.constant 4 : index
  %v620 = arith.muli %gid, %v619 : index
  %v621 = arith.constant 0 : index
  %v622 = arith.addi %v620, %v621 : index
  memref.store %v618, %out[%v622] : memref<?xi64>
  %v623 = arith.extsi %v11#0 : i32 to i64
  %v624 = arith.constant 4 : index
  %v625 = arith.muli %gid, %v624 : index
  %v626 = arith.constant 1 : index
  %v627 = arith.addi %v625, %v626 : index
  memref.store %v623, %out[%v627] : memref<?xi64>
  %v628 = arith.extsi %v328 : i32 to i64
  %v629 = arith.constant 4 : index
  %v630 = arith.muli %gid, %v629 : index
  %v631 = arith.constant 2 : index
  %v632 = arith.addi %v630, %v631 : index
  memref.store %v628, %out[%v632] : memref<?xi64>
  %v633 = arith.extsi %v502#0 : i8 to i64
  %v634 = arith.constant 4 : index
  %v635 = arith.muli %gid, %v634 : index
  %v636 = arith.constant 3 : index
  %v637 = arith.addi %v635, %v636 : index
  memref.store %v633, %out[%v637] : memref<?xi64>
  wave.terminate
}
func.func @main() {
  return
}

// Conformance: bindings (adapter_conformance_test.cpp, Bindings*). Lane i
// reads in[i] before a suspension and, after it, writes
//   out[i]  = a * in[i] + b                                (i32, wrapping)
//   cube[i / 12][(i / 4) mod 3][i mod 4] = i * i - a        for i < 24
//   f[i]    = sqrt(float(in[i])) * 0.5 + exp(-0.0625 * float(i mod 16))
// Every element has exactly one writer.
wave.coroutine @affine(%lane: i32)
    bind(%in: memref<?xi32> readonly, %out: memref<?xi32> writeonly,
         %cube: memref<2x3x4xi32> writeonly, %f: memref<?xf32> writeonly,
         %a: i32, %b: i32) {
  %i = arith.index_cast %lane : i32 to index
  %v = memref.load %in[%i] : memref<?xi32>
  wave.suspend "apply"
  %av = arith.muli %a, %v : i32
  %r = arith.addi %av, %b : i32
  memref.store %r, %out[%i] : memref<?xi32>

  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %c24 = arith.constant 24 : index
  %d0 = arith.divui %i, %c12 : index
  %q4 = arith.divui %i, %c4 : index
  %d1 = arith.remui %q4, %c3 : index
  %d2 = arith.remui %i, %c4 : index
  %incube = arith.cmpi ult, %i, %c24 : index
  scf.if %incube {
    %sq = arith.muli %lane, %lane : i32
    %cv = arith.subi %sq, %a : i32
    memref.store %cv, %cube[%d0, %d1, %d2] : memref<2x3x4xi32>
  }

  %x = arith.sitofp %v : i32 to f32
  %s = math.sqrt %x : f32
  %half = arith.constant 0.5 : f32
  %hs = arith.mulf %s, %half : f32
  %sixteen = arith.constant 16 : i32
  %k = arith.remui %lane, %sixteen : i32
  %kf = arith.uitofp %k : i32 to f32
  %step = arith.constant -0.0625 : f32
  %t = arith.mulf %kf, %step : f32
  %e = math.exp %t : f32
  %y = arith.addf %hs, %e : f32
  memref.store %y, %f[%i] : memref<?xf32>
  wave.terminate
}

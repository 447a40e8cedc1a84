// Multiply-adds that `fastmath<contract>` allows to fuse, with the product's
// operands computed before a suspension and the add after it (the wavefront
// carries them through the frame; the megakernel keeps them in registers).
// Lane l (l = 0 .. 63), with e = (l + 1) * 2^-12 and a = 1 + e (exact
// in f32 for l < 2047), c = 1 + 2e (exact):
//   out[4l + 0] = a * a + (-c)   contract   fused: e^2 exactly
//   out[4l + 1] = a * a - c      contract   fused: e^2
//   out[4l + 2] = c - a * a      contract   fused: -e^2
//   out[4l + 3] = a * a - c      no flags   rounded product: round(a^2) - c
// (a^2 = c + e^2, and e^2 = (l + 1)^2 2^-24 is below half an ulp of c for
// small l, so the rounded product loses it.) fused-multiply-add.py checks.
wave.coroutine @fma(%lane: i32) bind(%out: memref<256xf32> writeonly) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %step = arith.constant 2.44140625e-04 : f32
  %l1 = arith.constant 1 : i32
  %n = arith.addi %lane, %l1 : i32
  %nf = arith.uitofp %n : i32 to f32
  %e = arith.mulf %nf, %step : f32
  %a = arith.addf %one, %e : f32
  %e2 = arith.mulf %e, %two : f32
  %c = arith.addf %one, %e2 : f32
  %nc = arith.negf %c : f32
  %p = arith.mulf %a, %a fastmath<contract> : f32
  %q = arith.mulf %a, %a : f32
  wave.suspend "add"
  %r0 = arith.addf %p, %nc fastmath<contract> : f32
  %r1 = arith.subf %p, %c fastmath<contract> : f32
  %r2 = arith.subf %c, %p fastmath<contract> : f32
  %r3 = arith.subf %q, %c : f32
  %four = arith.constant 4 : i32
  %base = arith.muli %lane, %four : i32
  %i0 = arith.index_cast %base : i32 to index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i1 = arith.addi %i0, %c1 : index
  %i2 = arith.addi %i0, %c2 : index
  %i3 = arith.addi %i0, %c3 : index
  memref.store %r0, %out[%i0] : memref<256xf32>
  memref.store %r1, %out[%i1] : memref<256xf32>
  memref.store %r2, %out[%i2] : memref<256xf32>
  memref.store %r3, %out[%i3] : memref<256xf32>
  wave.terminate
}

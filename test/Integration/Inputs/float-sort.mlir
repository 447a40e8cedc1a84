// A stage sorted by an f32 key whose order codes span more than 32 bits
// (frame_order.h: a float's code is its double's bits with the sign flipped;
// -1.5 and 1.5 differ from bit 63 down), so that the GPU schedulers' small
// sorts in shared memory (codes relative to the lowest, in 32 bits) hand
// over to their sort through device memory. Lane l's key:
//   key(l) = ((3 l) mod 4) - 1.5
// l = 0..7: -1.5, 1.5, 0.5, -0.5, -1.5, 1.5, 0.5, -0.5.
// Used by ../wave-float-sort.test and ../vulkan/vulkan-float-sort.test.
wave.coroutine @c(%lane: i32) {
  %three = arith.constant 3 : i32
  %four = arith.constant 4 : i32
  %half = arith.constant 1.5 : f32
  %m = arith.muli %lane, %three : i32
  %r = arith.remui %m, %four : i32
  %f = arith.sitofp %r : i32 to f32
  %key = arith.subf %f, %half : f32
  wave.suspend "s" sort_by %key : f32
  wave.terminate
}

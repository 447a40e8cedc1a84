// Nested loops in unstructured control flow (the megakernel's shape): the
// lift to scf gives do-while scf.while loops.
module attributes {gpu.container_module} {
  gpu.module @loops {
    gpu.func @nested(%out: memref<?xi32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c5 = arith.constant 5 : i32
      cf.br ^outer(%c0, %c0 : i32, i32)
    ^outer(%i: i32, %total: i32):
      cf.br ^inner(%c0, %total : i32, i32)
    ^inner(%j: i32, %acc: i32):
      %ij = arith.muli %i, %j : i32
      %term = arith.addi %ij, %c1 : i32
      %acc2 = arith.addi %acc, %term : i32
      %j2 = arith.addi %j, %c1 : i32
      %more = arith.cmpi sle, %j2, %i : i32
      cf.cond_br %more, ^inner(%j2, %acc2 : i32, i32), ^next(%acc2 : i32)
    ^next(%t: i32):
      %i2 = arith.addi %i, %c1 : i32
      %again = arith.cmpi slt, %i2, %c5 : i32
      cf.cond_br %again, ^outer(%i2, %t : i32, i32), ^done(%t : i32)
    ^done(%r: i32):
      %z = arith.constant 0 : index
      memref.store %r, %out[%z] : memref<?xi32>
      gpu.return
    }
  }
}

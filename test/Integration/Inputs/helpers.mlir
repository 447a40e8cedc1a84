// Stage code and a handler that call func.func helpers (wave-helpers.test).
func.func private @sum_product(%a: i32, %b: i32) -> (i32, i32) {
  %s = arith.addi %a, %b : i32
  %p = arith.muli %a, %b : i32
  return %s, %p : i32, i32
}

func.func private @load_at(%m: memref<?xi32>, %i: i32) -> i32 {
  %x = arith.index_cast %i : i32 to index
  %v = memref.load %m[%x] : memref<?xi32>
  return %v : i32
}

func.func private @add_to(%m: memref<?xi32>, %i: i32, %v: i32) {
  %x = arith.index_cast %i : i32 to index
  %old = memref.atomic_rmw addi %v, %m[%x] : (i32, memref<?xi32>) -> i32
  return
}

pool.owner @sink capacity 64 stages ["add"] payload [i32, i32] {
  pool.handler "add" (%item) {
    %at, %v = pool.load %item : i32, i32
    %out = wave.binding "out" : memref<?xi32>
    func.call @add_to(%out, %at, %v) : (memref<?xi32>, i32, i32) -> ()
    pool.release %item
  }
}
pool.emission_bound @lanes -> @sink max 1

wave.coroutine @lanes(%lane: i32)
    bind(%in: memref<?xi32> readonly, %out: memref<?xi32> writeonly) {
  %seven = arith.constant 7 : i32
  %s, %p = func.call @sum_product(%lane, %seven) : (i32, i32) -> (i32, i32)
  wave.suspend "publish"
  %v = func.call @load_at(%in, %lane) : (memref<?xi32>, i32) -> i32
  %sp = arith.addi %s, %p : i32
  %total = arith.addi %sp, %v : i32
  pool.publish @sink "add" (%lane, %total) : i32, i32
  wave.terminate
}

// A wave program that exercises what stage code may do with bindings:
// f32 transcendentals, f64 arithmetic, a uniform, a static 2-D buffer, a
// private array (memref.alloca) filled and summed with scf.for, integer and
// float atomics (maxs in a stage, addf in a pool handler), and values read
// before a suspension and used after it. bindings-compute.py holds the
// closed forms (computed with NumPy) that wave-bindings-compute.test checks.
pool.owner @tally capacity 256 stages ["add"] payload [i32, f32] {
  pool.handler "add" (%item) {
    %bin, %w = pool.load %item : i32, f32
    %hist = wave.binding "hist" : memref<8xf32>
    %b = arith.index_cast %bin : i32 to index
    %old = memref.atomic_rmw addf %w, %hist[%b] : (f32, memref<8xf32>) -> f32
    pool.release %item
  }
}
pool.emission_bound @compute -> @tally max 1

wave.coroutine @compute(%lane: i32)
    bind(%x: memref<?xf32> readonly, %y: memref<?xf32> writeonly,
         %d: memref<?xf64> writeonly, %grid: memref<4x8xi64> writeonly,
         %peak: memref<1xi32>, %hist: memref<8xf32>, %scale: f32) {
  %i = arith.index_cast %lane : i32 to index
  %v = memref.load %x[%i] : memref<?xf32>
  %sq = math.sqrt %v : f32
  %e = math.exp %sq : f32
  // Resumes with %v, %e from the frame.
  wave.suspend "second"
  %p = math.powf %v, %scale : f32
  %l = math.log %e : f32
  %s = math.sin %v : f32
  %c = math.cos %v : f32
  %ss = arith.mulf %s, %s : f32
  %one = math.fma %c, %c, %ss : f32
  %fl = math.floor %p : f32
  %t = arith.addf %fl, %l : f32
  %r = arith.mulf %t, %one : f32
  memref.store %r, %y[%i] : memref<?xf32>

  // f64: d = fma(sqrt(w), sqrt(w), floor(|w - 2.5|)) for w = lane.
  %w = arith.uitofp %lane : i32 to f64
  %half5 = arith.constant 2.5 : f64
  %dw = arith.subf %w, %half5 : f64
  %ab = math.absf %dw : f64
  %fw = math.floor %ab : f64
  %rw = math.sqrt %w : f64
  %dv = math.fma %rw, %rw, %fw : f64
  memref.store %dv, %d[%i] : memref<?xf64>

  // grid[lane / 8][lane % 8] = sum_{k<4} (lane + k)^2 for lane < 32, through
  // a private array.
  %tmp = memref.alloca() : memref<4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lane64 = arith.extui %lane : i32 to i64
  scf.for %k = %c0 to %c4 step %c1 {
    %k64 = arith.index_cast %k : index to i64
    %a = arith.addi %lane64, %k64 : i64
    %a2 = arith.muli %a, %a : i64
    memref.store %a2, %tmp[%k] : memref<4xi64>
  }
  %zero = arith.constant 0 : i64
  %total = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> i64 {
    %a = memref.load %tmp[%k] : memref<4xi64>
    %n = arith.addi %acc, %a : i64
    scf.yield %n : i64
  }
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %row = arith.divui %i, %c8 : index
  %col = arith.remui %i, %c8 : index
  %ingrid = arith.cmpi ult, %i, %c32 : index
  scf.if %ingrid {
    memref.store %total, %grid[%row, %col] : memref<4x8xi64>
  }

  // peak = max over lanes of (7 lane) mod 100; hist[b] = lanes with lane % 8 == b.
  %seven = arith.constant 7 : i32
  %m = arith.muli %lane, %seven : i32
  %c100 = arith.constant 100 : i32
  %mm = arith.remui %m, %c100 : i32
  %oldpeak = memref.atomic_rmw maxs %mm, %peak[%c0] : (i32, memref<1xi32>) -> i32
  %eight = arith.constant 8 : i32
  %bin = arith.remui %lane, %eight : i32
  %unit = arith.constant 1.0 : f32
  pool.publish @tally "add" (%bin, %unit) : i32, f32
  wave.terminate
}

// Vector types and ops inside a kernel, on the CPU (fission and coroutines)
// and on Vulkan, against closed forms. Lane t < 64 of one block reads
// in[t .. t + 3] (in[j] = j, 68 elements) and in[t + 64 ..], which is past
// the end for every lane but those with t + 64 < 68 (a static extent: a
// Vulkan kernel is not given a buffer's length). Each lane computes, with
// integer-valued floats (exact everywhere):
//   a = vector.load in[t..t+3]            = (t, t+1, t+2, t+3)
//   b = insert 100 at [t mod 4] of broadcast(t)   (a dynamic position)
//   c = a + b, d = shuffle(c, a) [7, 0, 5, 2]
//   r1 = reduction add(d) ; r2 = reduction maxnumf(c)
//   p = transfer_read in[t + 64 ..] with padding -1, not in bounds:
//       element e is t + 64 + e if t + 64 + e < 68, else -1
//   e8 = (0..7) * (0..7) elementwise on 8 elements, summed, plus t:
//       140 + t (unrolled to two halves on Vulkan)
//   m = masked transfer_write of (t, t, t, t) with mask [1, 0, 1, 0] into
//       out2[4 t ..] (untouched elements keep -5).
// Closed forms, k = t mod 4 (c = a + b with b_k = 100, b_j = t):
//   c_j = 2t + j (j != k), c_k = t + k + 100
//   d = (a_3, c_0, a_1, c_2) so r1 = (t + 3) + c_0 + (t + 1) + c_2
//   r2 = t + k + 100
// Each lane counts mismatches; the host prints the total (0), then
// sum over t of r2 = sum (t + (t mod 4) + 100) = 2016 + 16 * 6 + 6400 = 8512,
// then the sum of out2 (for each t: 2 t written, two -5 kept):
// 2 * 2016 - 10 * 64 = 3392.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}8512{{$}}
// CHECK-NEXT: {{^}}3392{{$}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @vectors(%in: memref<68xf32>, %bad: memref<?xi32>, %r2s: memref<?xf32>,
                      %out2: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %c68 = arith.constant 68 : index
      %t = gpu.thread_id x
      %t32 = arith.index_cast %t : index to i32
      %tf = arith.sitofp %t32 : i32 to f32
      %k = arith.remui %t, %c4 : index
      %k32 = arith.index_cast %k : index to i32
      %kf = arith.sitofp %k32 : i32 to f32
      %one = arith.constant 1.0 : f32
      %two = arith.constant 2.0 : f32
      %three = arith.constant 3.0 : f32
      %hundred = arith.constant 100.0 : f32
      %minus1 = arith.constant -1.0 : f32
      %a = vector.load %in[%t] : memref<68xf32>, vector<4xf32>
      %bt = vector.broadcast %tf : f32 to vector<4xf32>
      %b = vector.insert %hundred, %bt [%k] : f32 into vector<4xf32>
      %c = arith.addf %a, %b : vector<4xf32>
      %d = vector.shuffle %c, %a [7, 0, 5, 2] : vector<4xf32>, vector<4xf32>
      %r1 = vector.reduction <add>, %d : vector<4xf32> into f32
      %r2 = vector.reduction <maxnumf>, %c : vector<4xf32> into f32
      // Expected r1 and r2.
      %twot = arith.mulf %tf, %two : f32
      %isk0 = arith.cmpi eq, %k, %c0 : index
      %c2i = arith.constant 2 : index
      %isk2 = arith.cmpi eq, %k, %c2i : index
      %tk100a = arith.addf %tf, %kf : f32
      %tk100 = arith.addf %tk100a, %hundred : f32
      %c0w = arith.select %isk0, %tk100, %twot : f32
      %twot2 = arith.addf %twot, %two : f32
      %c2w = arith.select %isk2, %tk100, %twot2 : f32
      %t3 = arith.addf %tf, %three : f32
      %t1 = arith.addf %tf, %one : f32
      %s1 = arith.addf %t3, %c0w : f32
      %s2 = arith.addf %s1, %t1 : f32
      %r1w = arith.addf %s2, %c2w : f32
      %m1 = arith.cmpf une, %r1, %r1w : f32
      %m2 = arith.cmpf une, %r2, %tk100 : f32
      // Out-of-bounds transfer: elements past 68 are the padding.
      %at = arith.addi %t, %c64 : index
      %p = vector.transfer_read %in[%at], %minus1 : memref<68xf32>, vector<4xf32>
      %bad0 = arith.constant 0 : i32
      %c1v = arith.constant 1 : index
      %pm = scf.for %e = %c0 to %c4 step %c1v iter_args(%acc = %bad0) -> (i32) {
        %pe = vector.extract %p[%e] : f32 from vector<4xf32>
        %j = arith.addi %at, %e : index
        %inside = arith.cmpi ult, %j, %c68 : index
        %j32 = arith.index_cast %j : index to i32
        %jf = arith.sitofp %j32 : i32 to f32
        %want = arith.select %inside, %jf, %minus1 : f32
        %ne = arith.cmpf une, %pe, %want : f32
        %ne32 = arith.extui %ne : i1 to i32
        %n = arith.addi %acc, %ne32 : i32
        scf.yield %n : i32
      }
      // Eight elements: elementwise and reduced.
      %lanes = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : vector<8xf32>
      %zero8 = arith.constant dense<0.0> : vector<8xf32>
      %t8a = arith.addf %zero8, %lanes : vector<8xf32>
      %e8 = arith.mulf %t8a, %t8a : vector<8xf32>
      %s8r = vector.reduction <add>, %e8 : vector<8xf32> into f32
      %s8 = arith.addf %s8r, %tf : f32
      %onefourty = arith.constant 140.0 : f32
      %s8w = arith.addf %tf, %onefourty : f32
      %m3 = arith.cmpf une, %s8, %s8w : f32
      // Masked write.
      %mask = arith.constant dense<[true, false, true, false]> : vector<4xi1>
      %o = arith.muli %t, %c4 : index
      vector.transfer_write %bt, %out2[%o], %mask {in_bounds = [true]} : vector<4xf32>, memref<?xf32>
      %g1 = arith.extui %m1 : i1 to i32
      %g2 = arith.extui %m2 : i1 to i32
      %g3 = arith.extui %m3 : i1 to i32
      %a1 = arith.addi %g1, %g2 : i32
      %a2 = arith.addi %a1, %g3 : i32
      %a3 = arith.addi %a2, %pm : i32
      memref.store %a3, %bad[%t] : memref<?xi32>
      memref.store %r2, %r2s[%t] : memref<?xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c68 = arith.constant 68 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %fzero = arith.constant 0.0 : f32
    %minus5 = arith.constant -5.0 : f32
    %in = memref.alloc() : memref<68xf32>
    scf.for %j = %c0 to %c68 step %c1 {
      %j32 = arith.index_cast %j : index to i32
      %jf = arith.sitofp %j32 : i32 to f32
      memref.store %jf, %in[%j] : memref<68xf32>
    }
    %bad = memref.alloc(%c64) : memref<?xi32>
    %r2s = memref.alloc(%c64) : memref<?xf32>
    %out2 = memref.alloc(%c256) : memref<?xf32>
    scf.for %j = %c0 to %c256 step %c1 {
      memref.store %minus5, %out2[%j] : memref<?xf32>
    }
    gpu.launch_func @kernels::@vectors blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%in : memref<68xf32>, %bad : memref<?xi32>, %r2s : memref<?xf32>, %out2 : memref<?xf32>)
    %total = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (i32) {
      %b = memref.load %bad[%i] : memref<?xi32>
      %n = arith.addi %acc, %b : i32
      scf.yield %n : i32
    }
    %t64 = arith.extsi %total : i32 to i64
    func.call @sluice_print_i64(%t64) : (i64) -> ()
    %rsum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %fzero) -> (f32) {
      %b = memref.load %r2s[%i] : memref<?xf32>
      %n = arith.addf %acc, %b : f32
      scf.yield %n : f32
    }
    %ri = arith.fptosi %rsum : f32 to i64
    func.call @sluice_print_i64(%ri) : (i64) -> ()
    %osum = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %fzero) -> (f32) {
      %b = memref.load %out2[%i] : memref<?xf32>
      %n = arith.addf %acc, %b : f32
      scf.yield %n : f32
    }
    %oi = arith.fptosi %osum : f32 to i64
    func.call @sluice_print_i64(%oi) : (i64) -> ()
    return
  }
}

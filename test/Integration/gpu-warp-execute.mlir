// gpu.warp_execute_on_lane_0 (sluice-distribute-warp-ops, run by every
// backend first) on warps of 8 lanes, whatever the device's subgroup size
// (CPU 32, lavapipe 8): the laneid is t mod 8, warp w of the grid is global
// lanes 8w .. 8w + 7. Global lane g = 64 b + t reads in[g] = g. The op yields
//   a vector<8xi32> of 2 in[base + j] + 1 (distributed: lane l gets 2 g + 1),
//   the sum over its 8 lanes of in (a reduction: 8 base + 28),
//   3 in[base] computed by lane 0 alone (a broadcast: 3 base),
// with base = 8 (g / 8). Each lane counts its mismatches against those
// closed forms; the host prints their total (0), then over g < 128 the sums
//   of 2 g + 1: 2 * 8128 + 128 = 16384;
//   of 8 base + 28: 8 * sum_{k<16} (64 k + 28) = 8 * 8128 = 65024;
//   of 3 base: 8 * sum_{k<16} 24 k = 23040.
// A second kernel has warps of 32 lanes (the CPU's subgroup: there the
// exchanges are gpu.shuffle and gpu.subgroup_reduce; on lavapipe workgroup
// memory). Lane l of warp base = 32 (g / 32) gets
//   3 in[base + l] = 3 g; the max over the warp, base + 31; element 5 of the
//   warp's vector (read from the lane that holds it), base + 5;
// sums over g < 128: 3 * 8128 = 24384; 32 * sum_{k<4} (32 k + 31) = 10112;
// 32 * sum_{k<4} (32 k + 5) = 6784; mismatches 0.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: env SLUICE_WORKERS=1 sluice-run %s | FileCheck %s
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}16384{{$}}
// CHECK-NEXT: {{^}}65024{{$}}
// CHECK-NEXT: {{^}}23040{{$}}
// CHECK-NEXT: {{^}}0{{$}}
// CHECK-NEXT: {{^}}24384{{$}}
// CHECK-NEXT: {{^}}10112{{$}}
// CHECK-NEXT: {{^}}6784{{$}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @warps(%in: memref<?xi32>, %vec: memref<?xi32>, %sum: memref<?xi32>,
                    %bcast: memref<?xi32>, %bad: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %tx = gpu.thread_id x
      %bid = gpu.block_id x
      %b64 = arith.muli %bid, %c64 : index
      %g = arith.addi %b64, %tx : index
      %lane = arith.remui %tx, %c8 : index
      %w = arith.divui %g, %c8 : index
      %base = arith.muli %w, %c8 : index
      %pad = arith.constant 0 : i32
      %r:3 = gpu.warp_execute_on_lane_0(%lane)[8] -> (vector<1xi32>, i32, i32) {
        %v = vector.transfer_read %in[%base], %pad {in_bounds = [true]} : memref<?xi32>, vector<8xi32>
        %two = arith.constant dense<2> : vector<8xi32>
        %one = arith.constant dense<1> : vector<8xi32>
        %v2 = arith.muli %v, %two : vector<8xi32>
        %v21 = arith.addi %v2, %one : vector<8xi32>
        %s = vector.reduction <add>, %v : vector<8xi32> into i32
        %first = memref.load %in[%base] : memref<?xi32>
        %c3 = arith.constant 3 : i32
        %f3 = arith.muli %first, %c3 : i32
        gpu.yield %v21, %s, %f3 : vector<8xi32>, i32, i32
      }
      %e = vector.extract %r#0[0] : i32 from vector<1xi32>
      memref.store %e, %vec[%g] : memref<?xi32>
      memref.store %r#1, %sum[%g] : memref<?xi32>
      memref.store %r#2, %bcast[%g] : memref<?xi32>
      // closed forms
      %g32 = arith.index_cast %g : index to i32
      %base32 = arith.index_cast %base : index to i32
      %i1 = arith.constant 1 : i32
      %i2 = arith.constant 2 : i32
      %i3 = arith.constant 3 : i32
      %i8 = arith.constant 8 : i32
      %i28 = arith.constant 28 : i32
      %x0 = arith.muli %g32, %i2 : i32
      %x1 = arith.addi %x0, %i1 : i32
      %y0 = arith.muli %base32, %i8 : i32
      %y1 = arith.addi %y0, %i28 : i32
      %z0 = arith.muli %base32, %i3 : i32
      %m0 = arith.cmpi ne, %e, %x1 : i32
      %m1 = arith.cmpi ne, %r#1, %y1 : i32
      %m2 = arith.cmpi ne, %r#2, %z0 : i32
      %n0 = arith.extui %m0 : i1 to i32
      %n1 = arith.extui %m1 : i1 to i32
      %n2 = arith.extui %m2 : i1 to i32
      %a0 = arith.addi %n0, %n1 : i32
      %a1 = arith.addi %a0, %n2 : i32
      %old = memref.atomic_rmw addi %a1, %bad[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
    gpu.func @warps32(%in: memref<?xi32>, %vec: memref<?xi32>, %max: memref<?xi32>,
                      %fifth: memref<?xi32>, %bad: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %tx = gpu.thread_id x
      %bid = gpu.block_id x
      %b64 = arith.muli %bid, %c64 : index
      %g = arith.addi %b64, %tx : index
      %lane = arith.remui %tx, %c32 : index
      %w = arith.divui %g, %c32 : index
      %base = arith.muli %w, %c32 : index
      %pad = arith.constant 0 : i32
      %r:3 = gpu.warp_execute_on_lane_0(%lane)[32] -> (vector<1xi32>, i32, i32) {
        %v = vector.transfer_read %in[%base], %pad {in_bounds = [true]} : memref<?xi32>, vector<32xi32>
        %three = arith.constant dense<3> : vector<32xi32>
        %v3 = arith.muli %v, %three : vector<32xi32>
        %m = vector.reduction <maxsi>, %v : vector<32xi32> into i32
        %e5 = vector.extract %v[5] : i32 from vector<32xi32>
        gpu.yield %v3, %m, %e5 : vector<32xi32>, i32, i32
      }
      %e = vector.extract %r#0[0] : i32 from vector<1xi32>
      memref.store %e, %vec[%g] : memref<?xi32>
      memref.store %r#1, %max[%g] : memref<?xi32>
      memref.store %r#2, %fifth[%g] : memref<?xi32>
      %g32 = arith.index_cast %g : index to i32
      %base32 = arith.index_cast %base : index to i32
      %i3 = arith.constant 3 : i32
      %i5 = arith.constant 5 : i32
      %i31 = arith.constant 31 : i32
      %x = arith.muli %g32, %i3 : i32
      %y = arith.addi %base32, %i31 : i32
      %z = arith.addi %base32, %i5 : i32
      %m0 = arith.cmpi ne, %e, %x : i32
      %m1 = arith.cmpi ne, %r#1, %y : i32
      %m2 = arith.cmpi ne, %r#2, %z : i32
      %n0 = arith.extui %m0 : i1 to i32
      %n1 = arith.extui %m1 : i1 to i32
      %n2 = arith.extui %m2 : i1 to i32
      %a0 = arith.addi %n0, %n1 : i32
      %a1 = arith.addi %a0, %n2 : i32
      %old = memref.atomic_rmw addi %a1, %bad[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  func.func @report(%vec: memref<?xi32>, %sum: memref<?xi32>, %bcast: memref<?xi32>, %bad: memref<?xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %nbad = memref.load %bad[%c0] : memref<?xi32>
    %nbad64 = arith.extui %nbad : i32 to i64
    func.call @sluice_print_i64(%nbad64) : (i64) -> ()
    %z64 = arith.constant 0 : i64
    %sums:3 = scf.for %i = %c0 to %c128 step %c1 iter_args(%s0 = %z64, %s1 = %z64, %s2 = %z64) -> (i64, i64, i64) {
      %a = memref.load %vec[%i] : memref<?xi32>
      %b = memref.load %sum[%i] : memref<?xi32>
      %c = memref.load %bcast[%i] : memref<?xi32>
      %a64 = arith.extsi %a : i32 to i64
      %b64 = arith.extsi %b : i32 to i64
      %c64v = arith.extsi %c : i32 to i64
      %t0 = arith.addi %s0, %a64 : i64
      %t1 = arith.addi %s1, %b64 : i64
      %t2 = arith.addi %s2, %c64v : i64
      scf.yield %t0, %t1, %t2 : i64, i64, i64
    }
    func.call @sluice_print_i64(%sums#0) : (i64) -> ()
    func.call @sluice_print_i64(%sums#1) : (i64) -> ()
    func.call @sluice_print_i64(%sums#2) : (i64) -> ()
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %in = memref.alloc(%c128) : memref<?xi32>
    %vec = memref.alloc(%c128) : memref<?xi32>
    %sum = memref.alloc(%c128) : memref<?xi32>
    %bcast = memref.alloc(%c128) : memref<?xi32>
    %bad = memref.alloc(%c1) : memref<?xi32>
    memref.store %zero, %bad[%c0] : memref<?xi32>
    scf.for %i = %c0 to %c128 step %c1 {
      %ii = arith.index_cast %i : index to i32
      memref.store %ii, %in[%i] : memref<?xi32>
    }
    gpu.launch_func @kernels::@warps blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%in : memref<?xi32>, %vec : memref<?xi32>, %sum : memref<?xi32>, %bcast : memref<?xi32>, %bad : memref<?xi32>)
    func.call @report(%vec, %sum, %bcast, %bad) : (memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>) -> ()
    memref.store %zero, %bad[%c0] : memref<?xi32>
    gpu.launch_func @kernels::@warps32 blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%in : memref<?xi32>, %vec : memref<?xi32>, %sum : memref<?xi32>, %bcast : memref<?xi32>, %bad : memref<?xi32>)
    func.call @report(%vec, %sum, %bcast, %bad) : (memref<?xi32>, memref<?xi32>, memref<?xi32>, memref<?xi32>) -> ()
    return
  }
}

// RUN: sluice-opt --sluice-distribute-warp-ops %s | FileCheck %s --check-prefix=MEM
// RUN: sluice-opt --sluice-distribute-warp-ops=subgroup-size=8 %s | FileCheck %s --check-prefix=SUB
// RUN: sluice-opt --sluice-expand-gpu-collectives=subgroup-size=8 %s | FileCheck %s --check-prefix=EXPAND

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @warp(%in: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>} {
      %tx = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %lane = arith.remui %tx, %c8 : index
      %w = arith.divui %tx, %c8 : index
      %base = arith.muli %w, %c8 : index
      %pad = arith.constant 0.0 : f32
      %r:2 = gpu.warp_execute_on_lane_0(%lane)[8] -> (vector<1xf32>, f32) {
        %v = vector.transfer_read %in[%base], %pad {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
        %s = vector.reduction <add>, %v : vector<8xf32> into f32
        %first = memref.load %in[%base] : memref<?xf32>
        %t = arith.addf %first, %s : f32
        gpu.yield %v, %t : vector<8xf32>, f32
      }
      %e = vector.extract %r#0[0] : f32 from vector<1xf32>
      %sum = arith.addf %e, %r#1 : f32
      memref.store %sum, %out[%tx] : memref<?xf32>
      gpu.return
    }
  }
}

// No warp op and no vector is left.
// MEM-LABEL: gpu.func @warp
// Workgroup arrays: one element per lane of the 16-lane block (the
// reduction's exchange) and, for the lowered op's scalar result, one row
// per warp (16 / 8 = 2 warps).
// MEM-SAME: workgroup(%[[LANES:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[ROWS:.*]] : memref<2x1xf32, #gpu.address_space<workgroup>>)
// MEM-NOT: gpu.warp_execute_on_lane_0
// MEM-NOT: vector.
// What stays sequential (the load of in[base]) runs on lane 0 and reaches
// the other lanes through the warp's row, between barriers.
// MEM: %[[LANE:.*]] = arith.remui %{{.*}}, %c8
// MEM: %[[IS0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// MEM: %[[WARP:.*]] = arith.divui %{{.*}}, %c8
// MEM: scf.if %[[IS0]] {
// MEM-NEXT: %[[FIRST:.*]] = memref.load
// MEM-NEXT: memref.store %[[FIRST]], %[[ROWS]][%[[WARP]], %c0]
// MEM-NEXT: }
// MEM-NEXT: gpu.barrier
// MEM-NEXT: memref.load %[[ROWS]][%[[WARP]], %c0]
// Each lane reads its element of the distributed vector itself
// (in[base + lane]).
// MEM: %[[AT:.*]] = arith.addi %{{.*}}, %[[LANE]] : index
// MEM-NEXT: %[[MINE:.*]] = memref.load %{{.*}}[%[[AT]]] : memref<?xf32>
// The reduction: store, barrier, the warp's 8 elements folded in lane
// order, barrier.
// MEM: memref.store %[[MINE]], %[[LANES]][%{{.*}}]
// MEM-NEXT: gpu.barrier
// MEM-COUNT-8: memref.load %[[LANES]]
// MEM: gpu.barrier
// MEM-NOT: gpu.barrier
// MEM: gpu.return

// With the warp as the backend's subgroup, the reduction is a
// gpu.subgroup_reduce, which sluice-expand-gpu-collectives (that runs the
// distribution first) expands into a butterfly of log2(8) = 3 shuffles.
// SUB-LABEL: gpu.func @warp
// SUB-SAME: workgroup(%{{.*}} : memref<2x1xf32, #gpu.address_space<workgroup>>)
// SUB-NOT: gpu.warp_execute_on_lane_0
// SUB: scf.if
// SUB: gpu.subgroup_reduce add %{{.*}} uniform : (f32) -> f32

// EXPAND-LABEL: gpu.func @warp
// EXPAND-NOT: gpu.warp_execute_on_lane_0
// EXPAND-NOT: gpu.subgroup_reduce
// EXPAND-COUNT-3: gpu.shuffle xor

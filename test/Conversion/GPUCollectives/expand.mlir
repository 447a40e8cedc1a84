// RUN: sluice-opt %s --sluice-expand-gpu-collectives=subgroup-size=8 | FileCheck %s
// RUN: sluice-opt %s --sluice-expand-gpu-collectives | FileCheck %s --check-prefix=DYNAMIC
// RUN: sluice-opt %s --sluice-expand-gpu-collectives=shuffles-as-indexed=true | FileCheck %s --check-prefix=INDEXED

module attributes {gpu.container_module} {
  gpu.module @m {
    // all_reduce: one workgroup element per lane (the known block size 64),
    // log2(64) = 6 tree steps, each ending with a barrier; every lane reads
    // element 0, then a last barrier.
    // CHECK-LABEL: gpu.func @all
    // CHECK-SAME: workgroup(%[[SCRATCH:.*]] : memref<64xf32, #gpu.address_space<workgroup>>)
    // CHECK: memref.store %{{.*}}, %[[SCRATCH]][%[[T:.*]]]
    // CHECK-NEXT: gpu.barrier
    // CHECK: %[[C6:.*]] = arith.constant 6 : index
    // CHECK: scf.for %{{.*}} = %{{.*}} to %[[C6]]
    // CHECK: scf.if
    // CHECK: arith.addf
    // CHECK: gpu.barrier
    // CHECK: memref.load %[[SCRATCH]][%{{.*}}]
    // CHECK-NEXT: gpu.barrier
    // CHECK-NOT: gpu.all_reduce
    gpu.func @all(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %v = arith.constant 1.0 : f32
      %r = gpu.all_reduce add %v {} : (f32) -> f32
      memref.store %r, %out[%tid] : memref<?xf32>
      gpu.return
    }
    // subgroup_reduce with a subgroup of 8: xor 1, 2, 4. Without a constant
    // size: a loop of 7 steps, each under offset < gpu.subgroup_size.
    // CHECK-LABEL: gpu.func @sub
    // CHECK: %[[C1:.*]] = arith.constant 1 : i32
    // CHECK: gpu.shuffle xor %{{.*}}, %[[C1]],
    // CHECK: arith.maxsi
    // CHECK: %[[C2:.*]] = arith.constant 2 : i32
    // CHECK: gpu.shuffle xor %{{.*}}, %[[C2]],
    // CHECK: %[[C4:.*]] = arith.constant 4 : i32
    // CHECK: gpu.shuffle xor %{{.*}}, %[[C4]],
    // CHECK-NOT: gpu.shuffle
    // CHECK: gpu.return
    // DYNAMIC-LABEL: gpu.func @sub
    // DYNAMIC: gpu.subgroup_size
    // DYNAMIC: scf.for
    // DYNAMIC: arith.cmpi ult
    // DYNAMIC: scf.if
    // DYNAMIC: gpu.shuffle xor
    gpu.func @sub(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      %r = gpu.subgroup_reduce maxsi %v : (i32) -> i32
      memref.store %r, %out[%tid] : memref<?xi32>
      gpu.return
    }
    // Queries of a subgroup of 8: lane_id = t mod 8, subgroup_id = t / 8,
    // num_subgroups = (lanes + 7) / 8.
    // CHECK-LABEL: gpu.func @queries
    // CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
    // CHECK: arith.remui %{{.*}}, %[[C8]]
    // CHECK: arith.divui %{{.*}}, %[[C8]]
    // CHECK: arith.divui
    // CHECK-NOT: gpu.lane_id
    // CHECK-NOT: gpu.subgroup_id
    // CHECK-NOT: gpu.num_subgroups
    // INDEXED-LABEL: gpu.func @queries
    // INDEXED: gpu.lane_id
    // INDEXED: gpu.subgroup_id
    gpu.func @queries(%out: memref<?xindex>) kernel {
      %tid = gpu.thread_id x
      %l = gpu.lane_id
      %s = gpu.subgroup_id : index
      %n = gpu.num_subgroups : index
      %a = arith.addi %l, %s : index
      %b = arith.addi %a, %n : index
      memref.store %b, %out[%tid] : memref<?xindex>
      gpu.return
    }
    // shuffles-as-indexed: down 1 becomes idx from lane + 1 over the whole
    // subgroup; valid is computed beside it.
    // INDEXED-LABEL: gpu.func @down
    // INDEXED: %[[SIZE:.*]] = arith.index_castui %{{.*}} : index to i32
    // INDEXED: %[[LANE:.*]] = arith.index_castui %{{.*}} : index to i32
    // INDEXED: %[[FROM:.*]] = arith.addi %[[LANE]], %{{.*}} : i32
    // INDEXED: %[[PICK:.*]] = arith.select %{{.*}}, %[[FROM]], %[[LANE]] : i32
    // INDEXED: gpu.shuffle idx %{{.*}}, %[[PICK]], %[[SIZE]] {sluice.indexed} : i32
    gpu.func @down(%out: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = arith.index_cast %tid : index to i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %s, %ok = gpu.shuffle down %v, %c1, %c32 : i32
      %z = arith.constant 0 : i32
      %r = arith.select %ok, %s, %z : i32
      memref.store %r, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}

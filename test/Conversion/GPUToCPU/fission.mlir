// RUN: sluice-opt %s --convert-gpu-to-cpu --split-input-file | FileCheck %s

// A kernel without barriers is one lane loop nest (z, y, x); constant launch
// sizes become constant trip counts. The launch writes the argument record and
// calls the block launcher.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scale(%data: memref<?xf32>, %factor: f32) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %data[%i] : memref<?xf32>
      %w = arith.mulf %v, %factor : f32
      memref.store %w, %data[%i] : memref<?xf32>
      gpu.return
    }
  }
  func.func @host(%data: memref<?xf32>, %factor: f32, %blocks: index) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@scale blocks in (%blocks, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%data : memref<?xf32>, %factor : f32)
    return
  }
}
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[DATA:.*]]: memref<?xf32>, %[[FACTOR:.*]]: f32, %[[BLOCKS:.*]]: index)
// CHECK: %[[RECORD:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, f32, i64, i64, i64, i64, i64, i64)>
// CHECK: %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[DATA]] : memref<?xf32> to !llvm.struct
// CHECK: llvm.store %[[DESC]]
// CHECK: llvm.store %[[FACTOR]]
// CHECK: %[[FN:.*]] = constant @__sluice_block_scale : (!llvm.ptr, i64) -> ()
// CHECK: call @sluice_rt_launch_blocks(%[[FN]], %[[RECORD]], %{{.*}}, %{{.*}})
// CHECK-NOT: gpu.launch_func

// CHECK-LABEL: func.func private @__sluice_block_scale(
// CHECK-SAME: %[[CTX:.*]]: !llvm.ptr, %[[BLOCK:.*]]: i64)
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[X:.*]] = %{{.*}} to %[[C64]]
// CHECK: arith.addi %{{.*}}, %[[X]] : index
// CHECK: memref.load
// CHECK: arith.mulf
// CHECK: memref.store
// CHECK-NOT: scf.for
// CHECK: return
// CHECK-NOT: __sluice_lane_

// -----

// Barriers at the top level and in a uniform scf.for: one lane loop nest per
// barrier-free run. The loop bound is computed once per block; a value that
// depends on memory and is used after a barrier goes through a per-lane array
// from the worker's arena; a pure function of the thread id is recomputed.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @steps(%out: memref<?xi32>, %n: index)
        workgroup(%buf: memref<32xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %sq = arith.muli %t, %t : i32
      memref.store %t, %buf[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %twice = arith.addi %n, %n : index
      scf.for %k = %c0 to %twice step %c1 {
        %v = memref.load %buf[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
        %w = arith.addi %v, %sq : i32
        gpu.barrier
        memref.store %w, %buf[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
        gpu.barrier
      }
      %r = memref.load %buf[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
      memref.store %r, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%out: memref<?xi32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @m::@steps blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%out : memref<?xi32>, %n : index)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_steps(
// Shared memory: 32 x i32 from the arena.
// CHECK: %[[SHBYTES:.*]] = arith.constant 128 : index
// CHECK: %[[SHSIZE:.*]] = arith.index_cast %[[SHBYTES]] : index to i64
// CHECK: call @sluice_rt_coro_alloc(%[[SHSIZE]]
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<32xi32>
// One per-lane array (for %w), allocated before the first lane loop.
// CHECK: call @sluice_rt_coro_alloc
// CHECK: %[[SLOT:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xi32>
// CHECK-NOT: call @sluice_rt_coro_alloc
// Segment 1 (%sq is dead here and not stored).
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[X1:.*]] =
// CHECK: %[[LANE1:.*]] = arith.addi %{{.*}}, %[[X1]] overflow<nsw, nuw> : index
// CHECK-NOT: memref.store %{{.*}}, %[[SLOT]]
// CHECK: memref.store %{{.*}}, %[[BUF]]
// The uniform bound, once per block, then the block-level loop.
// CHECK: %[[TWICE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TWICE]]
// Segment 2 recomputes %sq from the thread id and stores %w.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[X2:.*]] =
// CHECK: %[[LANE2:.*]] = arith.addi %{{.*}}, %[[X2]] overflow<nsw, nuw> : index
// CHECK: memref.load %[[BUF]]
// CHECK: %[[T:.*]] = arith.index_cast %[[X2]] : index to i32
// CHECK: %[[SQ:.*]] = arith.muli %[[T]], %[[T]] : i32
// CHECK: %[[W:.*]] = arith.addi %{{.*}}, %[[SQ]] : i32
// CHECK: memref.store %[[W]], %[[SLOT]][%[[LANE2]]] : memref<?xi32>
// Segment 3 reloads %w.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[X3:.*]] =
// CHECK: %[[LANE3:.*]] = arith.addi %{{.*}}, %[[X3]] overflow<nsw, nuw> : index
// CHECK: %[[WR:.*]] = memref.load %[[SLOT]][%[[LANE3]]] : memref<?xi32>
// CHECK: memref.store %[[WR]], %[[BUF]]
// Segment 4, after the block-level loop.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %[[BUF]]
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<?xi32>
// CHECK-NOT: llvm.intr.coro

// -----

// A lane loop whose body compares the thread id with a block-level value is
// split there: the comparison is a constant in each part.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @halve(%data: memref<64xi32>, %stride: index) kernel {
      %tid = gpu.thread_id x
      %active = arith.cmpi ult, %tid, %stride : index
      scf.if %active {
        %other = arith.addi %tid, %stride : index
        %v = memref.load %data[%other] : memref<64xi32>
        memref.store %v, %data[%tid] : memref<64xi32>
      }
      gpu.return
    }
  }
  func.func @host(%data: memref<64xi32>, %stride: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @m::@halve blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%data : memref<64xi32>, %stride : index)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_halve(
// CHECK-DAG: %[[STRIDE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : i64 to index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[LOW:.*]] = arith.maxui %[[STRIDE]], %[[ZERO:.*]] : index
// CHECK: %[[SPLIT:.*]] = arith.minui %[[LOW]], %[[C32]] : index
// CHECK: scf.for %{{.*}} = %[[ZERO]] to %[[SPLIT]]
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.if %[[TRUE]]
// CHECK: scf.for %{{.*}} = %[[SPLIT]] to %[[C32]]
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: scf.if %[[FALSE]]

// -----

// A view computed per lane and used after a barrier is recomputed in the
// later lane loop (it is a pure function of the thread id), not stored.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @views(%rows: memref<8x8xi32>) kernel {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %row = memref.subview %rows[%tid, 0] [1, 8] [1, 1]
          : memref<8x8xi32> to memref<8xi32, strided<[1], offset: ?>>
      gpu.barrier
      %v = memref.load %row[%c0] : memref<8xi32, strided<[1], offset: ?>>
      memref.store %v, %rows[%tid, %c0] : memref<8x8xi32>
      gpu.return
    }
  }
  func.func @host(%rows: memref<8x8xi32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @m::@views blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%rows : memref<8x8xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_views(
// CHECK-NOT: sluice_rt_coro_alloc
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[X:.*]] =
// CHECK: %[[ROW:.*]] = memref.subview %{{.*}}[%[[X]], 0] [1, 8] [1, 1]
// CHECK: memref.load %[[ROW]]
// CHECK-NOT: llvm.intr.coro

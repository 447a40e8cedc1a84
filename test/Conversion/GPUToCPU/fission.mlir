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
// The launch is the host-launch ABI with the CPU backend (1) and the block
// function as the handle; the operands follow in order (the memref, written:
// access 3, 4-byte elements; the f32 as its bits), then the grid.
// CHECK: %[[CPU:.*]] = arith.constant 1 : i32
// CHECK: %[[FN:.*]] = constant @__sluice_block_scale : (!llvm.ptr, i64) -> ()
// CHECK: %[[HANDLE:.*]] = builtin.unrealized_conversion_cast %[[FN]] : (!llvm.ptr, i64) -> () to !llvm.ptr
// CHECK: call @sluice_rt_launch_begin(%[[CPU]], %[[HANDLE]], %{{.*}}, %{{.*}})
// CHECK: memref.extract_aligned_pointer_as_index %[[DATA]]
// CHECK: %[[ELEMENT:.*]] = arith.constant 4 : i64
// CHECK: %[[ACCESS:.*]] = arith.constant 3 : i64
// CHECK: call @sluice_rt_launch_memref(%{{.*}}, %{{.*}}, %{{.*}}, %[[ELEMENT]], %[[ACCESS]])
// CHECK: call @sluice_rt_launch_memref_dim(
// CHECK: %[[BITS:.*]] = arith.bitcast %[[FACTOR]] : f32 to i32
// CHECK: %[[WIDE:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: call @sluice_rt_launch_scalar(%[[WIDE]], %{{.*}})
// CHECK: %[[GRIDX:.*]] = arith.index_cast %[[BLOCKS]] : index to i64
// CHECK: call @sluice_rt_launch_end(%[[GRIDX]],
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

// -----

// A trip count every lane loads from the same address (uniform operands, at
// block level) is uniform: the load runs once per block and the
// barrier-containing loop stays at block level (fission, no coroutine). The
// loop-carried value is stored to its per-lane array at the end of the body's
// last lane loop, right where the yielded value is computed (no copy loop).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rounds(%trips: memref<?xi32>, %out: memref<?xi32>)
        workgroup(%buf: memref<32xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %t32 = memref.load %trips[%bid] : memref<?xi32>
      %t = arith.index_cast %t32 : i32 to index
      %acc = scf.for %r = %c0 to %t step %c1 iter_args(%a = %zero) -> (i32) {
        memref.store %a, %buf[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %l = memref.load %buf[%c0] : memref<32xi32, #gpu.address_space<workgroup>>
        %next = arith.addi %a, %l : i32
        scf.yield %next : i32
      }
      memref.store %acc, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%trips: memref<?xi32>, %out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @m::@rounds blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%trips : memref<?xi32>, %out : memref<?xi32>)
    return
  }
}
// CHECK-LABEL: func.func @host(
// CHECK-NOT: __sluice_lane_rounds
// CHECK-LABEL: func.func private @__sluice_block_rounds(
// CHECK: call @sluice_rt_coro_alloc
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<32xi32>
// CHECK: call @sluice_rt_coro_alloc
// CHECK: %[[CARRY:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xi32>
// CHECK: %[[T32:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: %[[T:.*]] = arith.index_cast %[[T32]] : i32 to index
// CHECK: memref.store %{{.*}}, %[[CARRY]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[T]] step
// CHECK: memref.load %[[CARRY]]
// CHECK: memref.store %{{.*}}, %[[BUF]]
// After the barrier, the shared-memory load at a uniform address runs once.
// CHECK: %[[L:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<32xi32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[X:[^ ]*]] =
// CHECK: %[[LANE:.*]] = arith.addi %{{.*}}, %[[X]] overflow<nsw, nuw> : index
// CHECK-NEXT: %[[A:.*]] = memref.load %[[CARRY]][%[[LANE]]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[A]], %[[L]] : i32
// CHECK-NEXT: memref.store %[[NEXT]], %[[CARRY]][%[[LANE]]] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: memref.load %[[CARRY]]
// CHECK-NOT: llvm.intr.coro

// -----

// The lane loop order of each segment follows its memory accesses: the tile
// is written row by row (x innermost) and read back column by column, so the
// read-back segment runs with y innermost (tile[x][y] contiguous; loads weigh
// more than the strided stores to %out).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @transpose(%in: memref<8x8xi32>, %out: memref<8x8xi32>)
        workgroup(%tile: memref<8x9xi32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %v = memref.load %in[%ty, %tx] : memref<8x8xi32>
      memref.store %v, %tile[%ty, %tx] : memref<8x9xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %t = memref.load %tile[%tx, %ty] : memref<8x9xi32, #gpu.address_space<workgroup>>
      memref.store %t, %out[%ty, %tx] : memref<8x8xi32>
      gpu.return
    }
  }
  func.func @host(%in: memref<8x8xi32>, %out: memref<8x8xi32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @m::@transpose blocks in (%c1, %c1, %c1) threads in (%c8, %c8, %c1)
        args(%in : memref<8x8xi32>, %out : memref<8x8xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_transpose(
// CHECK: %[[TILE:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<8x9xi32>
// Segment 1: z, y, x.
// CHECK: scf.for
// CHECK-NEXT: scf.for %[[Y1:[^ ]*]] =
// CHECK-NEXT: scf.for %[[X1:[^ ]*]] =
// CHECK: memref.store %{{.*}}, %[[TILE]][%[[Y1]], %[[X1]]]
// Segment 2: z, x, y.
// CHECK: scf.for
// CHECK-NEXT: scf.for %[[X2:[^ ]*]] =
// CHECK-NEXT: scf.for %[[Y2:[^ ]*]] =
// CHECK: memref.load %[[TILE]][%[[X2]], %[[Y2]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[Y2]], %[[X2]]]

// -----

// A block-level loop with a short constant trip count is unrolled (LLVM
// unrolls only innermost loops): each step's stride is a constant, and so is
// the point where its lane loop is split.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @tree(%data: memref<64xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c16 = arith.constant 16 : index
      %tid = gpu.thread_id x
      scf.for %k = %c0 to %c3 step %c1 {
        %stride = arith.shrui %c16, %k : index
        %active = arith.cmpi ult, %tid, %stride : index
        scf.if %active {
          %other = arith.addi %tid, %stride : index
          %a = memref.load %data[%tid] : memref<64xi32>
          %b = memref.load %data[%other] : memref<64xi32>
          %s = arith.addi %a, %b : i32
          memref.store %s, %data[%tid] : memref<64xi32>
        }
        gpu.barrier
      }
      gpu.return
    }
  }
  func.func @host(%data: memref<64xi32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @m::@tree blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%data : memref<64xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_tree(
// CHECK: %[[S0:.*]] = arith.shrui %{{.*}}, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: %[[S1:.*]] = arith.shrui %{{.*}}, %{{.*}} : index
// CHECK: %[[S2:.*]] = arith.shrui %{{.*}}, %{{.*}} : index
// CHECK-NOT: arith.shrui
// CHECK: return

// -----

// A cyclic neighbour index (tid + 1) mod 32 splits its lane loop at the lane
// that wraps: below it the index is tid + 1, from it on tid + 1 - 32, so both
// parts read consecutive addresses.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rotate(%data: memref<32xi32>)
        workgroup(%buf: memref<32xi32, #gpu.address_space<workgroup>>) kernel {
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %tid = gpu.thread_id x
      %v = memref.load %data[%tid] : memref<32xi32>
      memref.store %v, %buf[%tid] : memref<32xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %next = arith.addi %tid, %c1 : index
      %right = arith.remui %next, %c32 : index
      %w = memref.load %buf[%right] : memref<32xi32, #gpu.address_space<workgroup>>
      memref.store %w, %data[%tid] : memref<32xi32>
      gpu.return
    }
  }
  func.func @host(%data: memref<32xi32>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @m::@rotate blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%data : memref<32xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_rotate(
// CHECK: call @sluice_rt_coro_alloc
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<32xi32>
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: %[[AT:.*]] = arith.constant 31 : index
// CHECK: scf.for %[[X1:[^ ]*]] = %{{.*}} to %[[AT]]
// CHECK: %[[N1:.*]] = arith.addi %[[X1]], %{{.*}} : index
// CHECK: memref.load %[[BUF]][%[[N1]]]
// CHECK: scf.for %[[X2:[^ ]*]] = %[[AT]] to
// CHECK: %[[N2:.*]] = arith.addi %[[X2]], %{{.*}} : index
// CHECK-NEXT: %[[W2:.*]] = arith.subi %[[N2]], %{{.*}} : index
// CHECK: memref.load %[[BUF]][%[[W2]]]

// -----

// A uniform load after a store in the same segment: the lanes' stores run in
// a lane loop first, then the load runs once and sees them.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @publish(%out: memref<?xi32>)
        workgroup(%buf: memref<4xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c7 = arith.constant 7 : i32
      %tid = gpu.thread_id x
      memref.store %c7, %buf[%c0] : memref<4xi32, #gpu.address_space<workgroup>>
      %v = memref.load %buf[%c0] : memref<4xi32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @m::@publish blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%out : memref<?xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_block_publish(
// CHECK: call @sluice_rt_coro_alloc
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<4xi32>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[BUF]]
// CHECK: %[[V:.*]] = memref.load %[[BUF]]
// CHECK: scf.for
// CHECK: memref.store %[[V]], %{{.*}}[

// RUN: sluice-opt %s --convert-gpu-to-cpu=coroutine-lanes=1 --split-input-file | FileCheck %s
// RUN: sluice-opt %s --convert-gpu-to-cpu --split-input-file | FileCheck %s --check-prefix=GROUP
// RUN: sluice-opt %s --convert-gpu-to-cpu="force-coroutines coroutine-lanes=1" --split-input-file | FileCheck %s --check-prefix=FORCED

// A barrier under a condition each lane reads from its own address (not
// provably uniform): coroutines (one per lane with coroutine-lanes=1, else one
// per group of 128 lanes).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @divergent(%flags: memref<?xi32>, %out: memref<?xi32>)
        workgroup(%buf: memref<64xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %flag = memref.load %flags[%tid] : memref<?xi32>
      %on = arith.cmpi ne, %flag, %zero : i32
      scf.if %on {
        %t = arith.index_cast %tid : index to i32
        memref.store %t, %buf[%tid] : memref<64xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v = memref.load %buf[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%tid] : memref<?xi32>
      }
      gpu.return
    }
  }
  func.func @host(%flags: memref<?xi32>, %out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@divergent blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%flags : memref<?xi32>, %out : memref<?xi32>)
    return
  }
}
// The lane coroutine: kernel arguments, shared memory, then thread id, block
// id, block size and grid size (x, y, z each).
// CHECK-LABEL: func.func private @__sluice_lane_divergent(
// CHECK-SAME: %[[FLAGS:[^:]*]]: memref<?xi32>, %[[OUT:[^:]*]]: memref<?xi32>, %[[BUF:[^:]*]]: memref<64xi32>, %[[TX:[^:]*]]: index,
// CHECK-SAME: -> !llvm.ptr attributes {passthrough = ["presplitcoroutine"]}
// CHECK: %[[ID:.*]] = llvm.intr.coro.id
// CHECK: %[[SIZE:.*]] = llvm.intr.coro.size : i64
// CHECK: %[[ALIGN:.*]] = llvm.intr.coro.align : i64
// CHECK: %[[MEM:.*]] = call @sluice_rt_coro_alloc(%[[SIZE]], %[[ALIGN]])
// CHECK: %[[HDL:.*]] = llvm.intr.coro.begin %[[ID]], %[[MEM]]
// The body is a CFG; the barrier is a suspend point.
// CHECK: cf.cond_br
// CHECK: memref.store %{{.*}}, %[[BUF]][%[[TX]]]
// CHECK: %[[STATE:.*]] = llvm.intr.coro.suspend %{{.*}}, %{{.*}} : i8
// CHECK: cf.switch %[[STATE]] : i8, [
// CHECK-NEXT: default: ^[[EXIT:bb[0-9]+]],
// CHECK-NEXT: 0: ^[[RESUME:bb[0-9]+]],
// CHECK-NEXT: 1: ^[[CLEANUP:bb[0-9]+]]
// CHECK: ^[[RESUME]]:
// CHECK: memref.load %[[BUF]]
// Final suspend, cleanup and exit.
// CHECK: %[[FINAL:.*]] = llvm.mlir.constant(true) : i1
// CHECK: llvm.intr.coro.suspend %{{.*}}, %[[FINAL]] : i8
// CHECK: ^[[CLEANUP]]:
// CHECK: %[[FRAME:.*]] = llvm.intr.coro.free %[[ID]], %[[HDL]]
// CHECK: call @sluice_rt_coro_free(%[[FRAME]])
// CHECK: ^[[EXIT]]:
// CHECK: llvm.intr.coro.end %[[HDL]]
// CHECK: return %[[HDL]] : !llvm.ptr

// The block function starts every lane, then resumes unfinished lanes
// round-robin until none is left.
// CHECK-LABEL: func.func private @__sluice_block_divergent(
// CHECK: %[[HANDLES:.*]] = call @sluice_rt_coro_alloc
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[H:.*]] = func.call @__sluice_lane_divergent(
// CHECK: llvm.store %[[H]]
// CHECK: scf.while : () -> () {
// CHECK: %[[ANY:.*]] = scf.for
// CHECK: %[[DONE:.*]] = llvm.call_intrinsic "llvm.coro.done"
// CHECK: scf.if
// CHECK-NEXT: llvm.intr.coro.resume
// CHECK: scf.condition(%[[ANY]])

// A lane-group coroutine: (first lane, lanes, 0) replace the thread id. Each
// lane loop is outlined into a plain function (not inlined, so the loop reads
// no coroutine frame). The condition is computed in a lane loop and stored per
// lane; the coroutine takes the first lane's value after checking that the
// group agrees.
// GROUP-LABEL: func.func private @__sluice_lanes_divergent_0(
// GROUP-SAME: attributes {passthrough = ["noinline"]}
// GROUP: scf.for %[[L:.*]] =
// GROUP: %[[ON:.*]] = arith.cmpi ne
// GROUP: memref.store %[[ON]], %{{.*}}[%[[L]]] : memref<?xi1>
// GROUP-LABEL: func.func private @__sluice_lane_divergent(
// GROUP-SAME: %[[FLAGS:[^:]*]]: memref<?xi32>, %[[OUT:[^:]*]]: memref<?xi32>, %[[BUF:[^:]*]]: memref<64xi32>, %[[BASE:[^:]*]]: index, %[[COUNT:[^:]*]]: index,
// GROUP: llvm.intr.coro.begin
// GROUP: %[[SLOT:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xi1>
// GROUP: call @__sluice_lanes_divergent_0(%[[BASE]], {{.*}}, %[[SLOT]],
// GROUP: %[[FIRST:.*]] = memref.load %[[SLOT]][%{{.*}}] : memref<?xi1>
// GROUP: memref.load %[[SLOT]]
// GROUP: arith.cmpi ne, %{{.*}}, %[[FIRST]] : i1
// GROUP: call @sluice_rt_barrier_divergence(
// GROUP: cf.cond_br %[[FIRST]]
// GROUP: call @__sluice_lanes_divergent_1(
// GROUP: llvm.intr.coro.suspend
// GROUP: call @__sluice_lanes_divergent_2(
// GROUP-LABEL: func.func private @__sluice_block_divergent(
// GROUP: %[[GROUPS:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// GROUP: scf.for %[[G:.*]] = %{{.*}} to %[[GROUPS]]
// GROUP: %[[FIRSTLANE:.*]] = arith.muli %[[G]]
// GROUP: %[[LANES:.*]] = arith.minui
// GROUP: func.call @__sluice_lane_divergent(%{{.*}}, %{{.*}}, %{{.*}}, %[[FIRSTLANE]], %[[LANES]],

// -----

// A kernel fission could take runs one coroutine per lane when forced.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @uniform(%out: memref<?xi32>)
        workgroup(%buf: memref<8xi32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      memref.store %t, %buf[%tid] : memref<8xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %t, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @m::@uniform blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%out : memref<?xi32>)
    return
  }
}
// CHECK-LABEL: func.func @host(
// CHECK-NOT: __sluice_lane_uniform
// CHECK-LABEL: func.func private @__sluice_block_uniform(
// CHECK-NOT: llvm.intr.coro

// FORCED-LABEL: func.func private @__sluice_lane_uniform(
// FORCED: llvm.intr.coro.suspend
// FORCED-LABEL: func.func private @__sluice_block_uniform(
// FORCED: func.call @__sluice_lane_uniform(

// -----

// Structurally fissionable, but a per-lane stack buffer (memref.alloca in the
// body) is live across the barrier and has no per-lane array: the kernel falls
// back to one coroutine per lane, whose frame keeps the buffer.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scratch(%rows: memref<8xi32>) kernel {
      %c0 = arith.constant 0 : index
      %tid = gpu.thread_id x
      %buffer = memref.alloca() : memref<1xi32>
      %v = memref.load %rows[%tid] : memref<8xi32>
      memref.store %v, %buffer[%c0] : memref<1xi32>
      gpu.barrier
      %w = memref.load %buffer[%c0] : memref<1xi32>
      memref.store %w, %rows[%tid] : memref<8xi32>
      gpu.return
    }
  }
  func.func @host(%rows: memref<8xi32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @m::@scratch blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%rows : memref<8xi32>)
    return
  }
}
// CHECK-LABEL: func.func private @__sluice_lane_scratch(
// CHECK: memref.alloca() : memref<1xi32>
// CHECK: llvm.intr.coro.suspend
// CHECK-LABEL: func.func private @__sluice_block_scratch(
// CHECK: func.call @__sluice_lane_scratch(
// GROUP-NOT: __sluice_lanes_scratch
// GROUP-LABEL: func.func private @__sluice_lane_scratch(
// GROUP-SAME: %[[ROWS:[^:]*]]: memref<8xi32>, %[[TX:[^:]*]]: index,
// GROUP: memref.alloca() : memref<1xi32>
// GROUP: memref.load %[[ROWS]][%[[TX]]]

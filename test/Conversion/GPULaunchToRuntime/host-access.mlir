// RUN: sluice-opt --convert-gpu-launch-to-runtime -split-input-file %s | FileCheck %s
// The CPU backend runs on host memory: no host-access calls, no residency.
// RUN: sluice-opt --convert-gpu-to-cpu -split-input-file %s | FileCheck %s --check-prefix=CPU
// RUN: sluice-opt --sluice-host-to-llvm=backend=cpu -split-input-file %s | FileCheck %s --check-prefix=CPU
// Without residency: no calls, and the launches copy as before (access 3).
// RUN: sluice-opt --convert-gpu-launch-to-runtime=resident=false -split-input-file %s | FileCheck %s --check-prefix=EAGER
//
// CPU-NOT: sluice_rt_host_access
// CPU-NOT: sluice_rt_launch_memref({{.*}}, %c{{[4-7]}}_i64)
// EAGER-NOT: sluice_rt_host_access
// EAGER: call @sluice_rt_launch_memref({{.*}}, %c3_i64)
// EAGER-NOT: sluice_rt_host_access
//
// With residency (docs/spirv-backend.md, "Residency"), every function that
// launches calls sluice_rt_host_access(ptr, bytes, access) before the host
// touches memory a launch used: access 1 read, 3 read + write, 4 free; the
// launches pass their memref operands with SLUICE_LAUNCH_RESIDENT (4) added
// to the kernel's access (5: read, 7: read + write).

// A barrier example's @main: two private allocations (x, and in through a
// cast) filled by a loop, launched ten times, read by a loop, freed. Each
// loop syncs once, before it; nothing between the launches.

// CHECK-LABEL: func.func @main()
// CHECK:       %[[X:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK:       %[[IN:.*]] = memref.alloc() : memref<64xi32>
// x: the aligned pointer and dim 0 * 4 bytes, read + write.
// CHECK:       %[[XADDR:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NEXT:  %[[XI64:.*]] = arith.index_castui %[[XADDR]] : index to i64
// CHECK:       %[[XDIM:.*]] = memref.dim %[[X]]
// CHECK-NEXT:  %[[XN:.*]] = arith.index_cast %[[XDIM]] : index to i64
// CHECK-NEXT:  %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  %[[XBYTES:.*]] = arith.muli %[[XN]], %[[FOUR]] : i64
// CHECK-NEXT:  %[[XPTR:.*]] = llvm.inttoptr %[[XI64]] : i64 to !llvm.ptr
// CHECK-NEXT:  %[[RW:.*]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%[[XPTR]], %[[XBYTES]], %[[RW]]) : (!llvm.ptr, i64, i64) -> ()
// in: a static shape, 256 bytes.
// CHECK-NEXT:  %[[INADDR:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK-NEXT:  %[[INI64:.*]] = arith.index_castui %[[INADDR]] : index to i64
// CHECK-NEXT:  %[[INBYTES:.*]] = arith.constant 256 : i64
// CHECK-NEXT:  %[[INPTR:.*]] = llvm.inttoptr %[[INI64]] : i64 to !llvm.ptr
// CHECK-NEXT:  %[[RW2:.*]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%[[INPTR]], %[[INBYTES]], %[[RW2]])
// CHECK-NEXT:  scf.for
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       scf.for
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       %[[A7:.*]] = arith.constant 7 : i64
// CHECK-NEXT:  call @sluice_rt_launch_memref(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A7]])
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       %[[A5:.*]] = arith.constant 5 : i64
// CHECK-NEXT:  call @sluice_rt_launch_memref(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A5]])
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       call @sluice_rt_launch_end
// CHECK-NEXT:  }
// The reading loop: one read of x before it.
// CHECK:       memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:       %[[R:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.*}}, %{{.*}}, %[[R]])
// CHECK-NEXT:  scf.for
// The subview load after the print needs no call of its own: the read
// covers it, and a call cannot reach a private allocation.
// CHECK:       call @sluice_print_i64
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       memref.subview %[[X]]
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       call @sluice_print_i64
// Frees before the deallocs, then nothing at the return (private memory).
// CHECK-NEXT:  memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:       llvm.inttoptr
// CHECK-NEXT:  %[[F:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.*}}, %{{.*}}, %[[F]])
// CHECK-NEXT:  memref.dealloc %[[X]]
// CHECK:       llvm.inttoptr
// CHECK-NEXT:  %[[F2:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.*}}, %{{.*}}, %[[F2]])
// CHECK-NEXT:  memref.dealloc %[[IN]]
// CHECK-NEXT:  return
// CHECK:       func.func private @sluice_rt_host_access(!llvm.ptr, i64, i64)
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @bump(%x: memref<?xi32>, %in: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xi32>
      %w = memref.load %in[%tid] : memref<?xi32>
      %s = arith.addi %v, %w : i32
      memref.store %s, %x[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %c64 = arith.constant 64 : index
    %n = arith.constant 64 : index
    %x = memref.alloc(%n) : memref<?xi32>
    %in = memref.alloc() : memref<64xi32>
    %inDyn = memref.cast %in : memref<64xi32> to memref<?xi32>
    scf.for %i = %c0 to %n step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %x[%i] : memref<?xi32>
      memref.store %v, %in[%i] : memref<64xi32>
    }
    scf.for %r = %c0 to %c10 step %c1 {
      gpu.launch_func @kernels::@bump blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
          args(%x : memref<?xi32>, %inDyn : memref<?xi32>)
    }
    %zero = arith.constant 0 : i64
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %v = memref.load %x[%i] : memref<?xi32>
      %v64 = arith.extui %v : i32 to i64
      %a = arith.addi %acc, %v64 : i64
      scf.yield %a : i64
    }
    func.call @sluice_print_i64(%sum) : (i64) -> ()
    %half = memref.subview %x[32] [32] [1] : memref<?xi32> to memref<32xi32, strided<[1], offset: 32>>
    %h = memref.load %half[%c0] : memref<32xi32, strided<[1], offset: 32>>
    %h64 = arith.extui %h : i32 to i64
    func.call @sluice_print_i64(%h64) : (i64) -> ()
    memref.dealloc %x : memref<?xi32>
    memref.dealloc %in : memref<64xi32>
    return
  }
}

// -----

// A read inside the loop of launches syncs every round, after the launch; the
// second read of the round is covered by the first. The launched alloca is
// freed at the return (its stack goes).

// CHECK-LABEL: func.func @rounds()
// CHECK:       %[[X:.*]] = memref.alloca() : memref<16xi32>
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       scf.for
// CHECK:       call @sluice_rt_launch_end
// CHECK-NEXT:  %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-NEXT:  %[[I64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK-NEXT:  %[[BYTES:.*]] = arith.constant 64 : i64
// CHECK-NEXT:  %[[PTR:.*]] = llvm.inttoptr %[[I64]] : i64 to !llvm.ptr
// CHECK-NEXT:  %[[R:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%[[PTR]], %[[BYTES]], %[[R]])
// CHECK-NEXT:  memref.load %[[X]]
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       memref.load %[[X]]
// CHECK-NOT:   sluice_rt_host_access
// CHECK:       }
// CHECK-NEXT:  memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:       %[[F:.*]] = arith.constant 4 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.*}}, %{{.*}}, %[[F]])
// CHECK-NEXT:  return
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @bump(%x: memref<16xi32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<16xi32>
      memref.store %v, %x[%tid] : memref<16xi32>
      gpu.return
    }
  }
  func.func @rounds() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %x = memref.alloca() : memref<16xi32>
    scf.for %r = %c0 to %c3 step %c1 {
      gpu.launch_func @kernels::@bump blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
          args(%x : memref<16xi32>)
      %v = memref.load %x[%c0] : memref<16xi32>
      %v64 = arith.extui %v : i32 to i64
      func.call @sluice_print_i64(%v64) : (i64) -> ()
      %w = memref.load %x[%c1] : memref<16xi32>
      %w64 = arith.extui %w : i32 to i64
      func.call @sluice_print_i64(%w64) : (i64) -> ()
    }
    return
  }
}

// -----

// Shared memory: the launched x is an argument, so it may alias y (another
// argument) and callees may reach it. Before a call that names no memref:
// everything (null, -1), read + write. Before the load of y: y's bytes from
// its strided layout (offset + the lowest to the highest element, 4 bytes
// each), read. Before the call that takes x: everything again (it covers x's
// own call). At the return: x, read + write (the caller sees it).

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?xi32>, %[[Y:[^:]+]]: memref<8x8xf32, strided<[16, 1], offset: ?>>)
// CHECK:       call @sluice_rt_launch_end
// CHECK-NEXT:  %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:  %[[ALL:.*]] = arith.constant -1 : i64
// CHECK-NEXT:  %[[RW:.*]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%[[NULL]], %[[ALL]], %[[RW]])
// CHECK-NEXT:  call @opaque()
// CHECK-NEXT:  %[[YADDR:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK-NEXT:  %[[YI64:.*]] = arith.index_castui %[[YADDR]] : index to i64
// CHECK-NEXT:  %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[Y]]
// Per dimension, (size - 1) * stride below and above 0; a size 0 is empty.
// CHECK-COUNT-2: arith.maxsi
// CHECK:       %[[SPAN:.*]] = arith.subi %{{[^,]+}}, %[[LOW:[^ ]+]] : i64
// CHECK-NEXT:  %[[COUNT:.*]] = arith.addi %[[SPAN]], %{{.*}} : i64
// CHECK-NEXT:  %[[NONEMPTY:.*]] = arith.select %{{.*}}, %{{.*}}, %[[COUNT]] : i64
// CHECK-NEXT:  %[[YBYTES:.*]] = arith.muli %[[NONEMPTY]], %{{.*}} : i64
// CHECK-NEXT:  %[[LOWBYTES:.*]] = arith.muli %[[LOW]], %{{.*}} : i64
// CHECK-NEXT:  %[[START:.*]] = arith.addi %[[YI64]], %[[LOWBYTES]] : i64
// CHECK-NEXT:  %[[YPTR:.*]] = llvm.inttoptr %[[START]] : i64 to !llvm.ptr
// CHECK-NEXT:  %[[R:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%[[YPTR]], %[[YBYTES]], %[[R]])
// CHECK-NEXT:  memref.load %[[Y]]
// CHECK-NEXT:  %[[NULL2:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:  %[[ALL2:.*]] = arith.constant -1 : i64
// CHECK-NEXT:  %[[RW2:.*]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%[[NULL2]], %[[ALL2]], %[[RW2]])
// CHECK-NEXT:  call @consume(%[[X]])
// CHECK-NEXT:  memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:       %[[RW3:.*]] = arith.constant 3 : i64
// CHECK-NEXT:  call @sluice_rt_host_access(%{{.*}}, %{{.*}}, %[[RW3]])
// CHECK-NEXT:  return
module attributes {gpu.container_module} {
  func.func private @opaque()
  func.func private @consume(memref<?xi32>)
  gpu.module @kernels {
    gpu.func @bump(%x: memref<?xi32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<?xi32>
      memref.store %v, %x[%tid] : memref<?xi32>
      gpu.return
    }
  }
  func.func @step(%x: memref<?xi32>, %y: memref<8x8xf32, strided<[16, 1], offset: ?>>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@bump blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%x : memref<?xi32>)
    func.call @opaque() : () -> ()
    %v = memref.load %y[%c0, %c0] : memref<8x8xf32, strided<[16, 1], offset: ?>>
    func.call @consume(%x) : (memref<?xi32>) -> ()
    return %v : f32
  }
}

// -----

// A private allocation that escapes (passed to a call) is shared as well: the
// call gets everything, and the loop around the load of x cannot be hoisted
// out of (it calls).

// CHECK-LABEL: func.func @escapes()
// CHECK:       %[[X:.*]] = memref.alloc() : memref<8xi32>
// CHECK:       call @sluice_rt_launch_end
// CHECK:       llvm.mlir.zero
// CHECK:       call @sluice_rt_host_access
// CHECK-NEXT:  call @consume
// CHECK:       scf.for
// CHECK:       call @sluice_rt_host_access
// CHECK-NEXT:  memref.load %[[X]]
// CHECK:       llvm.mlir.zero
// CHECK:       call @sluice_rt_host_access
// CHECK-NEXT:  call @sluice_print_i64
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  func.func private @consume(memref<8xi32>)
  gpu.module @kernels {
    gpu.func @bump(%x: memref<8xi32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<8xi32>
      memref.store %v, %x[%tid] : memref<8xi32>
      gpu.return
    }
  }
  func.func @escapes() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %x = memref.alloc() : memref<8xi32>
    gpu.launch_func @kernels::@bump blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%x : memref<8xi32>)
    func.call @consume(%x) : (memref<8xi32>) -> ()
    scf.for %i = %c0 to %c8 step %c1 {
      %v = memref.load %x[%i] : memref<8xi32>
      %v64 = arith.extui %v : i32 to i64
      func.call @sluice_print_i64(%v64) : (i64) -> ()
    }
    return
  }
}

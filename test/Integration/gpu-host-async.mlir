// Async tokens (gpu.wait async, gpu.alloc / memset / memcpy / dealloc /
// launch_func async with dependencies, tokens carried by scf.for and
// yielded by scf.if) and async.execute regions around launches
// (sluice-sequentialize-async, sluice-lower-gpu-host: program order, which
// every dependency respects).
//
// 1. a = 1 (memset), then 5 rounds of a = 2 a (@double) and a = a + i
//    (@add_id), each launch depending on the previous one through the
//    loop-carried token: x5 = 32 + 31 i; sum over i < 16 = 512 + 31 * 120 =
//    4232, a[0] = 32, a[15] = 497.
// 2. Two independent launches (@add_id on b = 0 and c = 0) joined by
//    gpu.wait async, then @double on c only under an scf.if that yields a
//    token: sum b = 120, sum c = 240.
// 3. async.execute: the first region launches @add_id on d = 0 (an inline
//    gpu.launch) and yields d[15] = 15; the second, after the first, gets it
//    as an !async.value and launches @add_scalar (d += 15): sum 120 + 16 * 15
//    = 360. Both tokens go through an async group and async.await_all; the
//    awaited value is 15.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-opt --sluice-sequentialize-async --sluice-lower-gpu-host %s | FileCheck %s --check-prefix=HOST
// CHECK: {{^}}4232{{$}}
// CHECK-NEXT: {{^}}32{{$}}
// CHECK-NEXT: {{^}}497{{$}}
// CHECK-NEXT: {{^}}120{{$}}
// CHECK-NEXT: {{^}}240{{$}}
// CHECK-NEXT: {{^}}15{{$}}
// CHECK-NEXT: {{^}}360{{$}}
// CHECK-NOT: {{.}}
// HOST-LABEL: func.func @main()
// HOST-NOT: async.
// HOST-NOT: !gpu.async.token
// HOST-NOT: gpu.wait
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @k {
    gpu.func @double(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<?xi32>
      %w = arith.addi %v, %v : i32
      memref.store %w, %b[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @add_id(%b: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<?xi32>
      %ti = arith.index_cast %t : index to i32
      %w = arith.addi %v, %ti : i32
      memref.store %w, %b[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @add_scalar(%b: memref<?xi32>, %x: i32) kernel {
      %t = gpu.thread_id x
      %v = memref.load %b[%t] : memref<?xi32>
      %w = arith.addi %v, %x : i32
      memref.store %w, %b[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @print_sum(%b: memref<?xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %b, %c0 : memref<?xi32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %v = memref.load %b[%i] : memref<?xi32>
      %vi = arith.index_cast %v : i32 to index
      %a = arith.addi %acc, %vi : index
      scf.yield %a : index
    }
    %s = arith.index_cast %sum : index to i64
    func.call @sluice_print_i64(%s) : (i64) -> ()
    return
  }
  func.func @print_at(%b: memref<?xi32>, %i: index) {
    %v = memref.load %b[%i] : memref<?xi32>
    %w = arith.extsi %v : i32 to i64
    func.call @sluice_print_i64(%w) : (i64) -> ()
    return
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %true = arith.constant true

    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] (%c16) : memref<?xi32>
    %t2 = gpu.memset async [%t1] %a, %one : memref<?xi32>, i32
    %t3 = scf.for %r = %c0 to %c5 step %c1 iter_args(%tok = %t2) -> (!gpu.async.token) {
      %td = gpu.launch_func async [%tok] @k::@double blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%a : memref<?xi32>)
      %ta = gpu.launch_func async [%td] @k::@add_id blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%a : memref<?xi32>)
      scf.yield %ta : !gpu.async.token
    }
    %ha = memref.alloc(%c16) : memref<?xi32>
    %t4 = gpu.memcpy async [%t3] %ha, %a : memref<?xi32>, memref<?xi32>
    %t5 = gpu.dealloc async [%t4] %a : memref<?xi32>
    gpu.wait [%t5]
    func.call @print_sum(%ha) : (memref<?xi32>) -> ()
    func.call @print_at(%ha, %c0) : (memref<?xi32>, index) -> ()
    func.call @print_at(%ha, %c15) : (memref<?xi32>, index) -> ()

    %b = memref.alloc(%c16) : memref<?xi32>
    %c = memref.alloc(%c16) : memref<?xi32>
    %tb0 = gpu.memset async [%t0] %b, %zero : memref<?xi32>, i32
    %tc0 = gpu.memset async [%t0] %c, %zero : memref<?xi32>, i32
    %tb = gpu.launch_func async [%tb0] @k::@add_id blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%b : memref<?xi32>)
    %tc = gpu.launch_func async [%tc0] @k::@add_id blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%c : memref<?xi32>)
    %tj = gpu.wait async [%tb, %tc]
    %tif = scf.if %true -> (!gpu.async.token) {
      %t = gpu.launch_func async [%tj] @k::@double blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%c : memref<?xi32>)
      scf.yield %t : !gpu.async.token
    } else {
      scf.yield %tj : !gpu.async.token
    }
    gpu.wait [%tif]
    func.call @print_sum(%b) : (memref<?xi32>) -> ()
    func.call @print_sum(%c) : (memref<?xi32>) -> ()

    %d = memref.alloc(%c16) : memref<?xi32>
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %d[%i] : memref<?xi32>
    }
    %e1, %v1 = async.execute -> !async.value<i32> {
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
        %v = memref.load %d[%tx] : memref<?xi32>
        %ti = arith.index_cast %tx : index to i32
        %w = arith.addi %v, %ti : i32
        memref.store %w, %d[%tx] : memref<?xi32>
        gpu.terminator
      }
      %x = memref.load %d[%c15] : memref<?xi32>
      async.yield %x : i32
    }
    %e2 = async.execute [%e1] (%v1 as %x: !async.value<i32>) {
      gpu.launch_func @k::@add_scalar blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%d : memref<?xi32>, %x : i32)
      async.yield
    }
    %group = async.create_group %c2 : !async.group
    %r1 = async.add_to_group %e1, %group : !async.token
    %r2 = async.add_to_group %e2, %group : !async.token
    async.await_all %group
    %x = async.await %v1 : !async.value<i32>
    %x64 = arith.extsi %x : i32 to i64
    func.call @sluice_print_i64(%x64) : (i64) -> ()
    func.call @print_sum(%d) : (memref<?xi32>) -> ()
    return
  }
}

// A kernel and a host function with blocks that no path reaches (as a front
// end's code generator may leave them): sluice-erase-unreachable-blocks
// erases them before any conversion, so the program runs on every backend.
// Without it, the conversions left the unreachable blocks' operations
// unconverted and the translation to LLVM IR failed on an unrealized cast.
// The kernel: lane t < 2 stores 10 t, the others t + 100 (through a block
// argument); the unreachable blocks would store -1 or print 999.
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --cpu-simd=8 --cpu-simd-all %s | FileCheck %s
// RUN: sluice-run --gpu-force-coroutines %s | FileCheck %s
// RUN: sluice-opt --sluice-erase-unreachable-blocks %s | FileCheck %s --check-prefix=ERASED
// ERASED: cf.cond_br %{{.*}}, ^bb1, ^bb2(%{{.*}} : i64)
// ERASED-NOT: -1 : i64
// ERASED: ^bb2(%{{.*}}: i64):
// ERASED-NOT: ^bb3
// ERASED: func.func @main
// ERASED-NOT: 999
// CHECK: {{^}}0{{$}}
// CHECK-NEXT: {{^}}10{{$}}
// CHECK-NEXT: {{^}}102{{$}}
// CHECK-NEXT: {{^}}103{{$}}
// CHECK-NEXT: {{^}}7{{$}}
// CHECK-NOT: 999
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi64>) kernel {
      %tx = gpu.thread_id x
      %t = arith.index_cast %tx : index to i64
      %two = arith.constant 2 : i64
      %ten = arith.constant 10 : i64
      %hundred = arith.constant 100 : i64
      %small = arith.cmpi ult, %t, %two : i64
      scf.execute_region {
        cf.cond_br %small, ^low, ^high(%t : i64)
      ^low:
        %v = arith.muli %t, %ten : i64
        memref.store %v, %out[%tx] : memref<?xi64>
        scf.yield
      ^never(%x: i64):
        %m = arith.constant -1 : i64
        memref.store %m, %out[%tx] : memref<?xi64>
        cf.br ^high(%x : i64)
      ^high(%a: i64):
        %b = arith.addi %a, %hundred : i64
        memref.store %b, %out[%tx] : memref<?xi64>
        scf.yield
      ^dead:
        scf.yield
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %out = memref.alloc(%c4) : memref<?xi64>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%out : memref<?xi64>)
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %out[%j] : memref<?xi64>
      func.call @sluice_print_i64(%v) : (i64) -> ()
    }
    %seven = arith.constant 7 : i64
    cf.br ^print
  ^unused:
    %n = arith.constant 999 : i64
    func.call @sluice_print_i64(%n) : (i64) -> ()
    return
  ^print:
    func.call @sluice_print_i64(%seven) : (i64) -> ()
    return
  }
}

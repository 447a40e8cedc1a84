// A kernel whose scf.execute_region holds a CFG of several blocks (one that
// no path reaches among them), and the divisions that round up or down:
// SPIR-V has neither, so sluice-gpu-to-spirv lifts the region's CFG to scf
// and inlines it, and expands arith.ceildivsi, ceildivui and floordivsi
// (expandKernelMath's ceilFloorDivisions). Before, the Vulkan backend
// failed to legalize both. Lane t of 8, a = t - 4: even lanes take
// ceil(a / 3) * 100, odd ones floor(a / 3) * 100 through a block argument,
// and every lane adds ceil(t / 3) (unsigned):
//   t:     0     1    2    3    4  5  6    7
//   value: -100  -99  1    -99  2  2  102  103
// REQUIRES: vulkan
// RUN: sluice-run %s | FileCheck %s
// RUN: sluice-run --backend=vulkan %s | FileCheck %s
// RUN: sluice-opt --sluice-gpu-to-spirv %s | FileCheck %s --check-prefix=SPIRV
// SPIRV-NOT: scf.execute_region
// SPIRV-NOT: ceildiv
// SPIRV-NOT: floordiv
// SPIRV: spirv.mlir.selection
// CHECK: {{^}}-100{{$}}
// CHECK-NEXT: {{^}}-99{{$}}
// CHECK-NEXT: {{^}}1{{$}}
// CHECK-NEXT: {{^}}-99{{$}}
// CHECK-NEXT: {{^}}2{{$}}
// CHECK-NEXT: {{^}}2{{$}}
// CHECK-NEXT: {{^}}102{{$}}
// CHECK-NEXT: {{^}}103{{$}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_i64(i64)
  gpu.module @kernels {
    gpu.func @k(%out: memref<?xi64>) kernel {
      %tx = gpu.thread_id x
      %t = arith.index_cast %tx : index to i64
      %one = arith.constant 1 : i64
      %three = arith.constant 3 : i64
      %four = arith.constant 4 : i64
      %hundred = arith.constant 100 : i64
      %a = arith.subi %t, %four : i64
      %up = arith.ceildivsi %a, %three : i64
      %down = arith.floordivsi %a, %three : i64
      %upu = arith.ceildivui %t, %three : i64
      %bit = arith.andi %t, %one : i64
      %odd = arith.trunci %bit : i64 to i1
      scf.execute_region {
        cf.cond_br %odd, ^odd(%down : i64), ^even
      ^even:
        %e = arith.muli %up, %hundred : i64
        cf.br ^join(%e : i64)
      ^never:
        cf.br ^join(%one : i64)
      ^odd(%d: i64):
        %o = arith.muli %d, %hundred : i64
        cf.br ^join(%o : i64)
      ^join(%v: i64):
        %w = arith.addi %v, %upu : i64
        memref.store %w, %out[%tx] : memref<?xi64>
        scf.yield
      }
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %out = memref.alloc(%c8) : memref<?xi64>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1) args(%out : memref<?xi64>)
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %out[%j] : memref<?xi64>
      func.call @sluice_print_i64(%v) : (i64) -> ()
    }
    return
  }
}

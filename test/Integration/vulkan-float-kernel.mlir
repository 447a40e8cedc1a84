// An f32 kernel (sqrt, divide, multiply-add), so that the Vulkan backend's
// float results are compared with a ulp bound (scripts/differential-cpu-vulkan)
// and not only integers. For i in [0, 4096), in f32:
//   out[i] = sqrt(float(i)) * 0.75 + float(i) / 7.0
// 16 blocks of 256 lanes. The host prints out[0], out[1], out[2], out[1000],
// out[4095] (extended to f64), then the sum of all 4096 elements accumulated
// in f64 in index order and rounded to binary32 for printing. The rounding
// puts the sum under the same per-value bound as the elements: on an NVIDIA
// H200, out[2] came back 1 ulp away (1.34637451171875) and the f64 sum
// 0.053 away (1329127.8968417048), which is half a binary32 ulp at 1.3e6
// (0.125); both backends print the same binary32 sum.
//
// Expected values, computed independently in Python with f32 emulation, every
// operation rounded to binary32 (r(x) = struct.unpack('<f', struct.pack('<f', x))[0]):
//   f(i) = r(r(r(sqrt(i)) * 0.75) + r(i / 7.0))
// (sqrt and / are correctly rounded in binary64 first; rounding that to
// binary32 equals the correctly rounded binary32 result, since 53 >= 2 * 24 + 2),
// printed like sluice_print_f64 ('%.17g'):
//   f(0)    = 0
//   f(1)    = r(0.75 + r(1/7))                          = 0.8928571343421936
//   f(2)    = r(r(r(1.41421...) * 0.75) + r(0.285714...)) = 1.3463743925094604
//   f(1000) = r(r(r(31.6227...) * 0.75) + r(142.857...))  = 166.57423400878906
//   f(4095) = r(r(r(63.9921...) * 0.75) + r(585.0))       = 632.994140625
//   sum_{i<4096} f(i), in f64                            = 1329127.8442025781
//   r(that sum)                                          = 1329127.875
// Cross-check in exact arithmetic: 0.75 * sum_{i<4096} sqrt(i) + 4095 * 4096 / 14
// = 1329127.84457..., 3.7e-4 away (4096 f32 roundings of about 1e-5 each).
//
// CPU: the exact values.
// REQUIRES: vulkan
// RUN: sluice-run %s | FileCheck %s
// Vulkan: the GPU may differ by a few ulp (the differential script bounds
// it); here, six values with the right leading digits.
// RUN: sluice-run --backend=vulkan %s | FileCheck %s --check-prefix=VULKAN
//
// CHECK:      {{^}}0{{$}}
// CHECK-NEXT: {{^}}0.8928571343421936{{$}}
// CHECK-NEXT: {{^}}1.3463743925094604{{$}}
// CHECK-NEXT: {{^}}166.57423400878906{{$}}
// CHECK-NEXT: {{^}}632.994140625{{$}}
// CHECK-NEXT: {{^}}1329127.875{{$}}
// CHECK-NOT:  {{.}}
//
// VULKAN:      {{^}}0{{$}}
// VULKAN-NEXT: {{^}}0.89285{{[0-9]*$}}
// VULKAN-NEXT: {{^}}1.34637{{[0-9]*$}}
// VULKAN-NEXT: {{^}}166.574{{[0-9]*$}}
// VULKAN-NEXT: {{^}}632.994{{[0-9]*$}}
// VULKAN-NEXT: {{^}}13291{{[0-9][0-9]}}{{(\.[0-9]+)?$}}
// VULKAN-NOT:  {{.}}
module attributes {gpu.container_module} {
  func.func private @sluice_print_f64(f64)

  gpu.module @kernels {
    gpu.func @k(%out: memref<?xf32>) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %i32 = arith.index_cast %i : index to i32
      %x = arith.uitofp %i32 : i32 to f32
      %root = math.sqrt %x : f32
      %c075 = arith.constant 0.75 : f32
      %c7 = arith.constant 7.0 : f32
      %scaled = arith.mulf %root, %c075 : f32
      %q = arith.divf %x, %c7 : f32
      %v = arith.addf %scaled, %q : f32
      memref.store %v, %out[%i] : memref<?xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c1000 = arith.constant 1000 : index
    %c4095 = arith.constant 4095 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 4096 : index
    %out = memref.alloc(%n) : memref<?xf32>
    gpu.launch_func @kernels::@k blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%out : memref<?xf32>)
    %v0 = memref.load %out[%c0] : memref<?xf32>
    %v1 = memref.load %out[%c1] : memref<?xf32>
    %v2 = memref.load %out[%c2] : memref<?xf32>
    %v3 = memref.load %out[%c1000] : memref<?xf32>
    %v4 = memref.load %out[%c4095] : memref<?xf32>
    %d0 = arith.extf %v0 : f32 to f64
    %d1 = arith.extf %v1 : f32 to f64
    %d2 = arith.extf %v2 : f32 to f64
    %d3 = arith.extf %v3 : f32 to f64
    %d4 = arith.extf %v4 : f32 to f64
    func.call @sluice_print_f64(%d0) : (f64) -> ()
    func.call @sluice_print_f64(%d1) : (f64) -> ()
    func.call @sluice_print_f64(%d2) : (f64) -> ()
    func.call @sluice_print_f64(%d3) : (f64) -> ()
    func.call @sluice_print_f64(%d4) : (f64) -> ()
    %zero = arith.constant 0.0 : f64
    %sum = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
      %e = memref.load %out[%j] : memref<?xf32>
      %e64 = arith.extf %e : f32 to f64
      %next = arith.addf %acc, %e64 : f64
      scf.yield %next : f64
    }
    %sum32 = arith.truncf %sum : f64 to f32
    %sum64 = arith.extf %sum32 : f32 to f64
    func.call @sluice_print_f64(%sum64) : (f64) -> ()
    memref.dealloc %out : memref<?xf32>
    return
  }
}

// An owner's storage policy in the program descriptor: convert-wave-to-gpu
// records its storage words and the function of every hook it names, and
// keeps those functions in the module, made public, to be compiled with the
// kernels (the CPU backend exports them under these names).
// RUN: sluice-opt %s --sluice-wave-to-gpu | FileCheck %s --check-prefix=IR
// RUN: sluice-opt %s --sluice-wave-to-gpu | sluice-translate --sluice-to-descriptor-json | FileCheck %s

// IR-NOT:   pool.owner
// IR-LABEL: func.func @free_slots(%{{.*}}: memref<2xi64>, %{{.*}}: memref<1xi32>, %{{.*}}: i64, %{{.*}}: i64) -> i64
// IR-LABEL: func.func @first_stage(

// CHECK:      "name": "arena",
// CHECK:      "policy": {
// CHECK-NEXT:   "admission_stage": "first_stage",
// CHECK-NEXT:   "availability": "free_slots",
// CHECK-NEXT:   "storage": 2
// CHECK-NEXT: },

pool.owner @arena capacity 8 stages ["use"] payload [i32]
    policy {availability = @free_slots, admission_stage = @first_stage,
            storage = 2 : i64} {
  pool.handler "use" (%item) {
    pool.release %item
  }
}
pool.emission_bound @lane -> @arena max 1
wave.coroutine @lane(%id: i32) {
  pool.publish @arena "use" (%id) : i32
  wave.terminate
}
func.func private @free_slots(%storage: memref<2xi64>, %counts: memref<1xi32>,
                              %capacity: i64, %live: i64) -> i64 {
  %free = arith.subi %capacity, %live : i64
  return %free : i64
}
func.func @first_stage(%storage: memref<2xi64>, %counts: memref<1xi32>,
                       %capacity: i64, %live: i64) -> i32 {
  %zero = arith.constant 0 : i32
  return %zero : i32
}

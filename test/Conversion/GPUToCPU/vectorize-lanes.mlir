// RUN: sluice-opt %s --convert-gpu-to-cpu="lane-vector-width=8 lane-vector-remarks" --split-input-file --mlir-print-op-on-diagnostic=false 2> %t.model | FileCheck %s
// RUN: FileCheck %s --check-prefix=MODEL < %t.model
// RUN: sluice-opt %s --convert-gpu-to-cpu="lane-vector-width=8 lane-vector-always lane-vector-remarks" --split-input-file --mlir-print-op-on-diagnostic=false 2> %t.always | FileCheck %s --check-prefix=ALWAYS
// RUN: FileCheck %s --check-prefix=ALWAYS-REMARK < %t.always
// RUN: sluice-opt %s --convert-gpu-to-cpu --split-input-file | FileCheck %s --check-prefix=SCALAR

// Lane loops run 8 lanes at a time (lib/Conversion/GPUToCPU/VectorizeLanes.cpp;
// test/Integration/gpu-lane-vectors.mlir runs the forms, and test/pathtracer
// compares the films byte by byte). A lane-dependent scf.if runs each side
// under its lanes' mask, each only when one of them is active, and selects the
// results; a uniform scf.for stays a loop over vectors; a load at a lane index
// is a masked gather, a store a masked scatter; an integer division of an
// inactive lane divides by one; a counter add whose old value is unused is the
// active lanes' sum (which AggregateCounters then adds once per block).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shade(%in: memref<?xf32>, %out: memref<?xf32>,
                    %counts: memref<?xi32> {sluice.counters}, %n: index,
                    %d: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %f0 = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<?xf32>
      %pos = arith.cmpf ogt, %x, %f0 : f32
      %y = scf.if %pos -> f32 {
        %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> f32 {
          %m = arith.mulf %acc, %x : f32
          %a = math.fma %m, %x, %acc : f32
          scf.yield %a : f32
        }
        scf.yield %s : f32
      } else {
        %ng = arith.negf %x : f32
        scf.yield %ng : f32
      }
      %dv = memref.load %d[%t] : memref<?xi32>
      %q = arith.divui %one, %dv : i32
      %qf = arith.uitofp %q : i32 to f32
      %z = arith.addf %y, %qf : f32
      memref.store %z, %out[%t] : memref<?xf32>
      %old = memref.atomic_rmw addi %one, %counts[%c0] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  func.func @host(%in: memref<?xf32>, %out: memref<?xf32>, %counts: memref<?xi32>, %n: index, %d: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@shade blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%in : memref<?xf32>, %out : memref<?xf32>, %counts : memref<?xi32>, %n : index, %d : memref<?xi32>)
    return
  }
}
// MODEL: remark: lane loop vectorized, 8 lanes at a time (22 vector operations, 3 gathers and scatters, 0 operations per lane, 0 divergent loops; in a loop, an operation counts 8 times)
// CHECK-LABEL: func.func private @__sluice_block_shade(
// CHECK: %[[LANES:.*]] = arith.constant 64 : index
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: scf.for %[[BASE:.*]] = %{{.*}} to %[[LANES]] step %[[EIGHT]] {
// CHECK:   %[[IOTA:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xindex>
// CHECK:   %[[B:.*]] = vector.broadcast %[[BASE]] : index to vector<8xindex>
// CHECK:   %[[LANE:.*]] = arith.addi %[[B]], %[[IOTA]] : vector<8xindex>
// CHECK:   %[[BOUND:.*]] = vector.broadcast %[[LANES]] : index to vector<8xindex>
// CHECK:   %[[MASK:.*]] = arith.cmpi ult, %[[LANE]], %[[BOUND]] : vector<8xindex>
// CHECK:   %[[X:.*]] = vector.gather %{{.*}}[%{{.*}}] [%[[LANE]]], %[[MASK]], %{{.*}} : memref<?xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK:   %[[POS:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : vector<8xf32>
// CHECK:   %[[THEN:.*]] = arith.select %[[MASK]], %[[POS]], %{{.*}} : vector<8xi1>, vector<8xi1>
// CHECK:   %[[ANY:.*]] = vector.reduction <or>, %[[THEN]] : vector<8xi1> into i1
// CHECK:   %[[T:.*]] = scf.if %[[ANY]] -> (vector<8xf32>) {
// CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[X]]) -> (vector<8xf32>) {
// CHECK:       math.fma {{.*}} : vector<8xf32>
// CHECK:   } else {
// CHECK:   %[[NOT:.*]] = arith.xori %[[POS]], %{{.*}} : vector<8xi1>
// CHECK:   %[[ELSE:.*]] = arith.select %[[MASK]], %[[NOT]], %{{.*}} : vector<8xi1>, vector<8xi1>
// CHECK:   %[[ANY2:.*]] = vector.reduction <or>, %[[ELSE]] : vector<8xi1> into i1
// CHECK:   %[[E:.*]] = scf.if %[[ANY2]] -> (vector<8xf32>) {
// CHECK:     arith.negf %[[X]] : vector<8xf32>
// CHECK:   %[[Y:.*]] = arith.select %[[POS]], %[[T]], %[[E]] : vector<8xi1>, vector<8xf32>
// CHECK:   %[[D:.*]] = vector.gather {{.*}} : memref<?xi32>, vector<8xindex>, vector<8xi1>, vector<8xi32> into vector<8xi32>
// CHECK:   %[[ONES:.*]] = arith.constant dense<1> : vector<8xi32>
// CHECK:   %[[SAFE:.*]] = arith.select %[[MASK]], %[[D]], %[[ONES]] : vector<8xi1>, vector<8xi32>
// CHECK:   arith.divui %{{.*}}, %[[SAFE]] : vector<8xi32>
// CHECK:   vector.scatter {{.*}}, %[[MASK]], %{{.*}} : memref<?xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32>
// CHECK:   %[[ACTIVE:.*]] = arith.select %[[MASK]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xi32>
// CHECK:   %[[SUM:.*]] = vector.reduction <add>, %[[ACTIVE]] : vector<8xi32> into i32
// CHECK:   %[[ACC:.*]] = memref.load %[[ACCUMULATOR:.*]][] : memref<i32>
// CHECK:   %[[NEW:.*]] = arith.addi %[[ACC]], %[[SUM]] : i32
// CHECK:   memref.store %[[NEW]], %[[ACCUMULATOR]][] : memref<i32>
// CHECK-NOT: memref.atomic_rmw
// CHECK: }
// CHECK: memref.atomic_rmw addi
// SCALAR-LABEL: func.func private @__sluice_block_shade(
// SCALAR-NOT: vector
// SCALAR: return

// -----

// A lane's private array gets 8 copies, element-major, in the entry block:
// element i of lane l is at i * 8 + l, so a uniform index reads 8 consecutive
// words and a lane index gathers.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @stack(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %a = memref.alloca() : memref<4xi32>
      scf.for %i = %c0 to %c4 step %c1 {
        memref.store %ti, %a[%i] : memref<4xi32>
      }
      %r = arith.remui %t, %c4 : index
      %v = memref.load %a[%r] : memref<4xi32>
      memref.store %v, %out[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@stack blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<?xi32>)
    return
  }
}
// Three vector operations do not pay for two gathers and scatters: the cost
// model keeps it scalar unless lane-vector-always.
// MODEL: remark: lane loop left scalar: 8 lanes at a time would not pay (3 vector operations, 2 gathers and scatters, 0 operations per lane, 0 divergent loops;
// CHECK-LABEL: func.func private @__sluice_block_stack(
// CHECK-NOT: vector
// CHECK: return
// ALWAYS-REMARK: remark: lane loop vectorized, 8 lanes at a time (3 vector operations, 2 gathers and scatters, 0 operations per lane, 0 divergent loops
// ALWAYS-LABEL: func.func private @__sluice_block_stack(
// ALWAYS-NEXT: %[[COPIES:.*]] = memref.alloca() : memref<32xi32>
// ALWAYS: scf.for
// ALWAYS:   scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %c4{{.*}} step %{{.*}} {
// ALWAYS:     %[[FIRST:.*]] = arith.muli %[[I]], %{{.*}} : index
// ALWAYS:     vector.maskedstore %[[COPIES]][%[[FIRST]]], %{{.*}}, %{{.*}} : memref<32xi32>, vector<8xi1>, vector<8xi32>
// ALWAYS: vector.gather %[[COPIES]][%{{.*}}] [%{{.*}}], %{{.*}}, %{{.*}} : memref<32xi32>, vector<8xindex>, vector<8xi1>, vector<8xi32> into vector<8xi32>
// ALWAYS-NOT: memref.alloca() : memref<4xi32>
// ALWAYS: return

// -----

// A lane-dependent while loop runs while one lane is in it; each lane's
// results are its values when it left. It diverges, so the cost model keeps
// the loop scalar unless lane-vector-always.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @steps(%out: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %x0 = arith.index_cast %t : index to i32
      %one = arith.constant 1 : i32
      %zero = arith.constant 0 : i32
      %r:2 = scf.while (%x = %x0, %s = %zero) : (i32, i32) -> (i32, i32) {
        %more = arith.cmpi ugt, %x, %one : i32
        scf.condition(%more) %x, %s : i32, i32
      } do {
      ^bb0(%x: i32, %s: i32):
        %h = arith.shrui %x, %one : i32
        %s1 = arith.addi %s, %one : i32
        scf.yield %h, %s1 : i32, i32
      }
      memref.store %r#1, %out[%t] : memref<?xi32>
      gpu.return
    }
  }
  func.func @host(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@steps blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<?xi32>)
    return
  }
}
// MODEL: remark: lane loop left scalar: 8 lanes at a time would not pay ({{.*}}, 1 divergent loops;
// CHECK-LABEL: func.func private @__sluice_block_steps(
// CHECK-NOT: vector
// CHECK: return
// ALWAYS-REMARK: remark: lane loop vectorized, 8 lanes at a time ({{.*}}, 1 divergent loops;
// ALWAYS-LABEL: func.func private @__sluice_block_steps(
// ALWAYS: %[[R:.*]]:5 = scf.while (%[[X:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}, %[[R0:.*]] = %{{.*}}, %[[R1:.*]] = %{{.*}}, %[[IN:.*]] = %{{.*}}) : (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi1>)
// ALWAYS:   %[[MORE:.*]] = arith.cmpi ugt, %[[X]], %{{.*}} : vector<8xi32>
// ALWAYS:   %[[STAY:.*]] = arith.select %[[IN]], %[[MORE]], %{{.*}} : vector<8xi1>, vector<8xi1>
// ALWAYS:   %[[LEAVE:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xi1>
// ALWAYS:   %[[K0:.*]] = arith.select %[[LEAVE]], %[[X]], %[[R0]] : vector<8xi1>, vector<8xi32>
// ALWAYS:   %[[K1:.*]] = arith.select %[[LEAVE]], %[[S]], %[[R1]] : vector<8xi1>, vector<8xi32>
// ALWAYS:   %[[ANY:.*]] = vector.reduction <or>, %[[STAY]] : vector<8xi1> into i1
// ALWAYS:   scf.condition(%[[ANY]]) %[[X]], %[[S]], %[[K0]], %[[K1]], %[[STAY]]
// ALWAYS: vector.scatter %{{.*}}[%{{.*}}] [%{{.*}}], %{{.*}}, %[[R]]#3

// -----

// A cycle in a lane loop's CFG is not linearized: the loop stays scalar.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @cyclic(%out: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      scf.execute_region {
        %c0 = arith.constant 0 : i32
        cf.br ^loop(%c0 : i32)
      ^loop(%i: i32):
        %c3 = arith.constant 3 : i32
        %more = arith.cmpi slt, %i, %c3 : i32
        %c1 = arith.constant 1 : i32
        %next = arith.addi %i, %c1 : i32
        cf.cond_br %more, ^loop(%next : i32), ^done
      ^done:
        memref.store %i, %out[%t] : memref<?xi32>
        scf.yield
      }
      gpu.return
    }
  }
  func.func @host(%out: memref<?xi32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@cyclic blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<?xi32>)
    return
  }
}
// MODEL: remark: lane loop left scalar: 'scf.execute_region' has a cycle in its control flow
// CHECK-LABEL: func.func private @__sluice_block_cyclic(
// CHECK-NOT: vector
// CHECK: return
// ALWAYS-REMARK: remark: lane loop left scalar: 'scf.execute_region' has a cycle in its control flow

// -----

// What stays scalar, and why (each kernel's remark names the operation).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @vector_value(%out: memref<?xf32>) kernel {
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i32
      %f = arith.sitofp %i : i32 to f32
      %v = vector.broadcast %f : f32 to vector<4xf32>
      %e = vector.extract %v[0] : f32 from vector<4xf32>
      memref.store %e, %out[%t] : memref<?xf32>
      gpu.return
    }
    gpu.func @two_dimensional(%in: memref<?x4xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      %v = memref.load %in[%t, %c0] : memref<?x4xf32>
      memref.store %v, %out[%t] : memref<?xf32>
      gpu.return
    }
    gpu.func @private_atomic(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %a = memref.alloca() : memref<1xi32>
      memref.store %one, %a[%c0] : memref<1xi32>
      %old = memref.atomic_rmw addi %one, %a[%c0] : (i32, memref<1xi32>) -> i32
      memref.store %old, %out[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @square_view(%bytes: memref<?xi8>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : index
      %t = gpu.thread_id x
      %at = arith.muli %t, %c16 : index
      %view = memref.view %bytes[%at][] : memref<?xi8> to memref<2x2xf32>
      %v = memref.load %view[%c0, %c0] : memref<2x2xf32>
      memref.store %v, %out[%t] : memref<?xf32>
      gpu.return
    }
    gpu.func @square_array(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i32
      %a = memref.alloca() : memref<2x2xi32>
      memref.store %i, %a[%c0, %c0] : memref<2x2xi32>
      %v = memref.load %a[%c0, %c0] : memref<2x2xi32>
      memref.store %v, %out[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @lane_step(%out: memref<?xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %step = arith.addi %t, %c1 : index
      %n = scf.for %i = %c0 to %c64 step %step iter_args(%k = %zero) -> i32 {
        %k1 = arith.addi %k, %one : i32
        scf.yield %k1 : i32
      }
      memref.store %n, %out[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @region_result(%out: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i32
      %r = scf.execute_region -> i32 {
        scf.yield %i : i32
      }
      memref.store %r, %out[%t] : memref<?xi32>
      gpu.return
    }
    gpu.func @switch(%out: memref<?xi32>) kernel {
      %t = gpu.thread_id x
      %i = arith.index_cast %t : index to i32
      scf.execute_region {
        cf.switch %i : i32, [
          default: ^done,
          0: ^zero
        ]
      ^zero:
        memref.store %i, %out[%t] : memref<?xi32>
        cf.br ^done
      ^done:
        scf.yield
      }
      gpu.return
    }
  }
}
// ALWAYS-REMARK: remark: lane loop left scalar: 'vector.broadcast' has a value of type vector<4xf32> for each lane, which has no vector form
// ALWAYS-REMARK: remark: lane loop left scalar: 'memref.load' reads or writes a 2-dimensional memref at a lane index (gathers and scatters take one dimension)
// ALWAYS-REMARK: remark: lane loop left scalar: 'memref.atomic_rmw' reads a lane's private array or view
// ALWAYS-REMARK: remark: lane loop left scalar: 'memref.view' is a view at a lane-dependent offset of other than a one-dimensional array of integers or floats
// ALWAYS-REMARK: remark: lane loop left scalar: 'memref.alloca' is not a static one-dimensional array
// ALWAYS-REMARK: remark: lane loop left scalar: 'scf.for' has a step that differs between lanes
// ALWAYS-REMARK: remark: lane loop left scalar: 'scf.execute_region' has results
// ALWAYS-REMARK: remark: lane loop left scalar: 'cf.switch' ends a block of the region

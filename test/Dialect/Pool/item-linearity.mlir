// Handlers that consume their item exactly once on every path are accepted
// and left unchanged.
// RUN: sluice-opt %s --sluice-verify-item-linearity | FileCheck %s

// CHECK-LABEL: pool.owner @linear
pool.owner @linear capacity 8 stages ["move", "release", "load_then_move", "branches", "no_else_after", "switch", "nested", "loop_loads", "region"] payload [i32] {
  // CHECK: pool.handler "move" (%[[ITEM:.*]]) {
  // CHECK-NEXT: pool.move %[[ITEM]] to "release"
  pool.handler "move" (%item) {
    pool.move %item to "release"
  }
  pool.handler "release" (%item) {
    pool.release %item
  }
  // Loads may come before the consumption, any number of times.
  pool.handler "load_then_move" (%item) {
    %a = pool.load %item : i32
    %b = pool.load %item : i32
    %sum = arith.addi %a, %b : i32
    pool.move %item to "release" (%sum) : i32
  }
  // Both branches consume, in different ways.
  pool.handler "branches" (%item) {
    %v = pool.load %item : i32
    %c0 = arith.constant 0 : i32
    %positive = arith.cmpi sgt, %v, %c0 : i32
    scf.if %positive {
      pool.move %item to "release"
    } else {
      pool.release %item
    }
  }
  // An if without else that only loads, then a consumption after it.
  pool.handler "no_else_after" (%item) {
    %true = arith.constant true
    scf.if %true {
      %v = pool.load %item : i32
    }
    pool.release %item
  }
  // Every case of an index_switch consumes.
  pool.handler "switch" (%item) {
    %c1 = arith.constant 1 : index
    scf.index_switch %c1
    case 0 {
      pool.move %item to "move"
      scf.yield
    }
    case 1 {
      pool.move %item to "release"
      scf.yield
    }
    default {
      pool.release %item
    }
  }
  // Nested branches: each of the three paths consumes once.
  pool.handler "nested" (%item) {
    %true = arith.constant true
    scf.if %true {
      scf.if %true {
        pool.release %item
      } else {
        pool.move %item to "switch"
      }
    } else {
      pool.release %item
    }
  }
  // Loading inside a loop is fine; the consumption follows the loop.
  pool.handler "loop_loads" (%item) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %v = pool.load %item : i32
    }
    pool.release %item
  }
  // An execute_region runs exactly once.
  pool.handler "region" (%item) {
    scf.execute_region {
      pool.release %item
      scf.yield
    }
  }
}

// Every diagnostic of --sluice-verify-item-linearity.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics \
// RUN:   --sluice-verify-item-linearity

pool.owner @o capacity 1 stages ["a"] payload [i32] {
  // expected-error @below {{'pool.handler' op handler of stage 'a' neither moves nor releases its item; every path must do exactly one}}
  pool.handler "a" (%item) {
    %v = pool.load %item : i32
  }
}

// -----

pool.owner @o capacity 1 stages ["a", "b"] payload [] {
  pool.handler "a" (%item) {
    // expected-note @below {{item consumed here}}
    pool.move %item to "b"
    // expected-error @below {{'pool.release' op uses the item after it was moved}}
    pool.release %item
  }
  pool.handler "b" (%item) {
    pool.release %item
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    // expected-note @below {{item consumed here}}
    pool.release %item
    // expected-error @below {{'pool.release' op uses the item after it was released}}
    pool.release %item
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [i32] {
  pool.handler "a" (%item) {
    // expected-note @below {{item consumed here}}
    pool.release %item
    // expected-error @below {{'pool.load' op uses the item after it was released}}
    %v = pool.load %item : i32
  }
}

// -----

// Consumed on both branches, then once more after the if.
pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    scf.if %true {
      // expected-note @below {{item consumed here}}
      pool.move %item to "a"
    } else {
      pool.release %item
    }
    // expected-error @below {{'pool.release' op uses the item after it was moved}}
    pool.release %item
  }
}

// -----

// A use inside a branch after the consumption.
pool.owner @o capacity 1 stages ["a"] payload [i32] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    // expected-note @below {{item consumed here}}
    pool.move %item to "a"
    scf.if %true {
      // expected-error @below {{'pool.load' op uses the item after it was moved}}
      %v = pool.load %item : i32
    }
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    // expected-error @below {{'scf.if' op consumes the item on some paths but not on others; every path must move or release it exactly once}}
    scf.if %true {
      // expected-note @below {{consumed here on one path}}
      pool.release %item
    } else {
      // expected-note @below {{this branch leaves it unconsumed}}
      %c = arith.constant 0 : i32
    }
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    // expected-error @below {{'scf.if' op consumes the item on some paths but not on others}}
    // expected-note @below {{this missing else branch leaves it unconsumed}}
    scf.if %true {
      // expected-note @below {{consumed here on one path}}
      pool.release %item
    }
  }
}

// -----

// Consumed only in the else branch.
pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    // expected-error @below {{'scf.if' op consumes the item on some paths but not on others}}
    scf.if %true {
      // expected-note @below {{this branch leaves it unconsumed}}
      %c = arith.constant 0 : i32
    } else {
      // expected-note @below {{consumed here on one path}}
      pool.move %item to "a"
    }
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'scf.index_switch' op consumes the item on some paths but not on others}}
    scf.index_switch %c0
    case 0 {
      pool.release %item
      scf.yield
    }
    case 1 {
      // expected-note @below {{this branch leaves it unconsumed}}
      scf.yield
    }
    default {
      // The default region comes first among the op's regions.
      // expected-note @below {{consumed here on one path}}
      pool.release %item
    }
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @below {{'scf.for' op consumes the item inside a region that may run zero or many times}}
    scf.for %i = %c0 to %c1 step %c1 {
      // expected-note @below {{item consumed here}}
      pool.release %item
    }
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    // expected-error @below {{'scf.while' op consumes the item inside a region that may run zero or many times}}
    scf.while : () -> () {
      scf.condition(%true)
    } do {
      // expected-note @below {{item consumed here}}
      pool.move %item to "a"
      scf.yield
    }
  }
}

// -----

// A consumption nested in a branch inside a loop is still inside the loop.
pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @below {{'scf.for' op consumes the item inside a region that may run zero or many times}}
    scf.for %i = %c0 to %c1 step %c1 {
      scf.if %true {
        // expected-note @below {{item consumed here}}
        pool.release %item
      } else {
        pool.release %item
      }
    }
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    // expected-error @below {{'builtin.unrealized_conversion_cast' op takes the item as an operand; only 'pool.load', 'pool.move' and 'pool.release' may use it}}
    %cast = builtin.unrealized_conversion_cast %item : !pool.item to i64
    pool.release %item
  }
}

// -----

// The item escapes out of a branch.
pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    %true = arith.constant true
    %same = scf.if %true -> !pool.item {
      // expected-error @below {{'scf.yield' op takes the item as an operand; only 'pool.load', 'pool.move' and 'pool.release' may use it}}
      scf.yield %item : !pool.item
    } else {
      scf.yield %item : !pool.item
    }
    pool.release %same
  }
}

// -----

pool.owner @o capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    // expected-error @below {{'scf.execute_region' op has a multi-block region; item linearity needs structured control flow}}
    scf.execute_region {
      cf.br ^next
    ^next:
      pool.release %item
      scf.yield
    }
  }
}

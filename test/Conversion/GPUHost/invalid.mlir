// What sluice-sequentialize-async and sluice-lower-gpu-host refuse.
// RUN: sluice-opt --sluice-sequentialize-async --sluice-lower-gpu-host --split-input-file -verify-diagnostics %s

func.func @token_returned() -> !gpu.async.token {
  %t = gpu.wait async
  %b, %t1 = gpu.alloc async [%t] () : memref<4xi32>
  // expected-error @below {{a !gpu.async.token is used by 'func.return': every backend runs gpu work in program order (sluice-lower-gpu-host), so a token may only order gpu ops and flow through scf loops and branches of one function}}
  return %t1 : !gpu.async.token
}

// -----

func.func private @consume(!gpu.async.token)
func.func @token_to_call() {
  %t = gpu.wait async
  // expected-error @below {{a !gpu.async.token is used by 'func.call'}}
  func.call @consume(%t) : (!gpu.async.token) -> ()
  return
}

// -----

func.func @memory_space() {
  // expected-error @below {{gpu.alloc of 'memref<4xi32, 3>': every backend gives kernels host memory in the default memory space; allocate without a memory space}}
  %b = gpu.alloc () : memref<4xi32, 3>
  return
}

// -----

func.func @execute_returned() -> !async.token {
  // expected-error @below {{async.execute runs in place (sluice-sequentialize-async), so its results may only be awaited, added to a group or passed to another async.execute; this one is used by 'func.return'}}
  %t = async.execute {
    async.yield
  }
  // expected-note @below {{used here}}
  return %t : !async.token
}

// -----

func.func @value_argument(%v: !async.value<i32>) {
  // expected-error @below {{is an !async.value that no async.execute of this module produced; async.execute bodies run in place (sluice-sequentialize-async) and take only the values of earlier async.execute ops}}
  %t = async.execute (%v as %x: !async.value<i32>) {
    async.yield
  }
  return
}

// -----

func.func @await_argument(%v: !async.value<i32>) -> i32 {
  // expected-error @below {{awaits an !async.value that no async.execute of this module produced (async.execute bodies run in place, sluice-sequentialize-async)}}
  %x = async.await %v : !async.value<i32>
  return %x : i32
}

// -----

func.func private @keep(!async.group)
func.func @group_escapes() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{async groups only collect async.execute tokens for async.await_all (sluice-sequentialize-async); this one is used by 'func.call'}}
  %g = async.create_group %c1 : !async.group
  // expected-note @below {{used here}}
  func.call @keep(%g) : (!async.group) -> ()
  return
}

// -----

// expected-error @below {{'async.func' is not supported: sluice-sequentialize-async runs async.execute regions in place and has no async runtime (write the work inline or in an async.execute)}}
async.func @coroutine() -> !async.token {
  return
}

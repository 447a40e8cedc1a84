// Every verifier diagnostic of the wave dialect.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'wave.coroutine' op a coroutine returns no values, but the signature has 1 result(s)}}
wave.coroutine @returns_value() -> i32 {
  wave.terminate
}

// -----

// The entry block is checked against the signature by FunctionOpInterface.
// expected-error @below {{entry block must have 1 arguments to match function signature}}
"wave.coroutine"() <{function_type = (i32) -> (), sym_name = "missing_arg"}> ({
  "wave.terminate"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{type of entry block argument #0('f32') must match the type of the corresponding argument in function signature('i32')}}
"wave.coroutine"() <{function_type = (i32) -> (), sym_name = "wrong_arg_type"}> ({
^bb0(%x: f32):
  "wave.terminate"() : () -> ()
}) : () -> ()

// -----

// expected-error @below {{'wave.coroutine' op body must end in 'wave.terminate'}}
wave.coroutine @wrong_terminator() {
  llvm.unreachable
}

// -----

wave.coroutine @no_terminator() {
  // expected-error @below {{block with no terminator}}
  %c = arith.constant 1 : i32
}

// -----

// expected-error @below {{expected non-empty function body}}
wave.coroutine @empty_body() {
}

// -----

wave.coroutine @duplicate_stage(%cond: i1) {
  // expected-note @below {{first suspension at this stage}}
  wave.suspend "shade"
  scf.if %cond {
    // expected-error @below {{'wave.suspend' op stage 'shade' is already a suspension point of @duplicate_stage}}
    wave.suspend "shade"
  }
  wave.terminate
}

// -----

func.func @suspend_outside() {
  // expected-error @below {{'wave.suspend' op must be nested inside a 'wave.coroutine'}}
  wave.suspend "s"
  return
}

// -----

wave.coroutine @empty_stage() {
  // expected-error @below {{'wave.suspend' op stage name must not be empty}}
  wave.suspend ""
  wave.terminate
}

// -----

// Stage and coroutine names become parts of kernel names (HIP C++ functions,
// SPIR-V entry points): letters, digits and '_' only. A NUL byte made
// sluice-fuzz-lowering's SPIR-V fail validation (an OpName cut short).
wave.coroutine @spaced_stage() {
  // expected-error @below {{'wave.suspend' op stage name "a b-c.d" may hold letters, digits and '_' only: it becomes part of kernel names on every backend}}
  wave.suspend "a b-c.d"
  wave.terminate
}

// -----

wave.coroutine @nul_stage() {
  // expected-error @below {{'wave.suspend' op stage name "pu\00lish" may hold letters}}
  wave.suspend "pu\00lish"
  wave.terminate
}

// -----

// expected-error @below {{'wave.coroutine' op name "a.b" may hold letters, digits and '_' only}}
wave.coroutine @a.b() {
  wave.terminate
}

// -----

wave.coroutine @bad_sort_key(%key: vector<4xi32>) {
  // expected-error @below {{'wave.suspend' op operand #0 must be signless integer or floating-point or index}}
  wave.suspend "s" sort_by %key : vector<4xi32>
  wave.terminate
}

// -----

wave.coroutine @nested_terminate(%cond: i1) {
  scf.if %cond {
    // expected-error @below {{'wave.terminate' op expects parent op 'wave.coroutine'}}
    wave.terminate
  }
  wave.terminate
}

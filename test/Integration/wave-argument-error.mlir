// sluice-run gives lane i the argument i; a coroutine that takes anything
// but one integer cannot be run.
//
// RUN: %expect-exit 1 sluice-run %s --lanes=4 2>&1 | FileCheck %s
// CHECK: error: the runtime passes each lane its lane id as the coroutine's only (integer) per-lane argument; @f takes 'f32' (pass shared data as bindings: bind(%name: type, ...))

wave.coroutine @f(%x: f32) {
  wave.suspend "next"
  wave.terminate
}

// The smallest wave program: no arguments, no suspension, no capacity owner.
// Its only stage is "entry", which finishes the lane: 5 lanes run "entry"
// once each and finish. (A func.func next to the coroutine is lowered along
// and not called.)
//
// RUN: sluice-run %s --lanes=5 --stats | FileCheck %s
// RUN: sluice-run %s --lanes=5 --stats --schedule=state-machine --layout=aos | FileCheck %s
// CHECK:      c: 5 lanes
// CHECK:      {{^}}entry {{ *}}{{[0-9]+}} {{ *}}5 {{ *}}0 {{ *}}0 {{ *}}0 {{ *}}0 {{ *}}0{{$}}
// CHECK-NEXT: iterations:
// CHECK-NEXT: lanes finished: 5{{$}}
// CHECK-NOT:  owner

wave.coroutine @c() {
  wave.terminate
}
func.func @main() {
  return
}

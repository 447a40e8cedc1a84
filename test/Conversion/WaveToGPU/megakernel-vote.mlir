// sluice-build-megakernel{warp-vote}: the state machine whose stage each
// subgroup votes on. The program of megakernel.mlir: global stages entry 0,
// publish 1, the owner's drain 2; so state 3 is "needs a lane" and 4
// "stopped", and the vote's key is the state + 1, 0 for a stopped thread.
// RUN: sluice-opt %S/megakernel.mlir --wave-split --convert-wave-to-gpu --sluice-build-megakernel=warp-vote | FileCheck %s

// CHECK-LABEL: gpu.func @emit__megakernel(
// CHECK-SAME: %[[COUNT:[a-z0-9]+]]: index,
// The state, after the shared private arrays.
// CHECK:      %[[INRANGE:.*]] = arith.cmpi ult, %{{.*}}, %[[COUNT]] : index
// CHECK-NEXT: %[[STATE:.*]] = memref.alloca() : memref<1xi32>
// CHECK:      cf.cond_br %[[INRANGE]], ^[[SETUP:bb[0-9]+]], ^[[OUTSIDE:bb[0-9]+]]
// A thread in range starts needing a lane; one past `count` starts stopped
// but stays in the loop, so that every thread of a subgroup votes.
// CHECK:      ^[[SETUP]]:
// CHECK:      memref.store %c3_i32, %[[STATE]]
// CHECK-NEXT: cf.br ^[[HEAD:bb[0-9]+]]
// CHECK:      ^[[HEAD]]:
// CHECK-NEXT: %[[S0:.*]] = memref.load %[[STATE]]
// CHECK:      arith.cmpi eq, %[[S0]], %c3_i32
// CHECK:      ^[[OUTSIDE]]:
// CHECK-NEXT: %c4_i32{{.*}} = arith.constant 4 : i32
// CHECK-NEXT: memref.store %c4_i32{{.*}}, %[[STATE]]
// CHECK-NEXT: cf.br ^[[HEAD]]
// The vote: the maximum of the keys; 0 means every thread has stopped.
// CHECK:      %[[S:.*]] = memref.load %[[STATE]]
// CHECK:      %[[STOPPED:.*]] = arith.cmpi eq, %[[S]], %c4_i32
// CHECK:      %[[NEXT:.*]] = arith.addi %[[S]], %c1_i32
// CHECK-NEXT: %[[KEY:.*]] = arith.select %[[STOPPED]], %c0_i32{{.*}}, %[[NEXT]]
// CHECK-NEXT: %[[CHOSEN:.*]] = gpu.subgroup_reduce maxui %[[KEY]] uniform
// CHECK:      %[[ALL:.*]] = arith.cmpi eq, %[[CHOSEN]], %c0_i32
// CHECK-NEXT: cf.cond_br %[[ALL]], ^[[EXIT:bb[0-9]+]], ^[[CHOOSE:bb[0-9]+]]
// A claimed lane starts at stage 0.
// CHECK:      memref.atomic_rmw addi
// CHECK:      memref.store %c0_i32{{.*}}, %[[STATE]]
// CHECK:      ^[[EXIT]]:
// CHECK-NEXT: cf.cond_br %[[INRANGE]]
// Only the threads at the chosen state run; the others wait at the head.
// CHECK:      ^[[CHOOSE]]:
// CHECK-NEXT: %[[MINE:.*]] = arith.cmpi eq, %[[KEY]], %[[CHOSEN]]
// CHECK-NEXT: cf.cond_br %[[MINE]], ^[[BODY:bb[0-9]+]], ^[[HEAD]]
// CHECK:      ^[[BODY]]:
// CHECK:      arith.cmpi ult, %[[S]], %c2_i32
// An item's stage runs on its slot, with the owner's local stage.
// CHECK:      arith.addi %[[S]], %c-2_i32
// One vote per turn of the loop.
// CHECK-NOT:  gpu.subgroup_reduce

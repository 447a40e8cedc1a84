// sluice-spirv-split-loop-headers moves the ops of a loop header that holds a
// nested loop or selection into a block of their own; a header without one
// stays as it is. MLIR's serializer gives the inner loop's OpPhi the outer
// header as its incoming block although the branch is in the block it splits
// off after OpLoopMerge: without the pass the module fails spirv-val (the
// `not` line: when it starts to pass, the serializer is fixed and the pass
// can go), with it the module passes.
// RUN: sluice-opt --pass-pipeline='builtin.module(spirv.module(sluice-spirv-split-loop-headers))' %s | FileCheck %s
// RUN: %if spirv-tools %{ sluice-translate --sluice-to-spirv-bin %s -o %t.before.spv %}
// RUN: %if spirv-tools %{ not spirv-val --target-env vulkan1.1 %t.before.spv 2>&1 | FileCheck %s --check-prefix=UPSTREAM %}
// RUN: %if spirv-tools %{ sluice-opt --pass-pipeline='builtin.module(spirv.module(sluice-spirv-split-loop-headers))' %s | sluice-translate --sluice-to-spirv-bin -o %t.after.spv %}
// RUN: %if spirv-tools %{ spirv-val --target-env vulkan1.1 %t.after.spv %}

// UPSTREAM: OpPhi's incoming basic block {{.*}} is not a predecessor

// CHECK-LABEL: spirv.func @nested
// CHECK: spirv.mlir.loop {
// CHECK-NEXT: spirv.Branch ^[[HEADER:bb[0-9]+]](
// CHECK-NEXT: ^[[HEADER]](%[[I:.*]]: i32):
// CHECK-NEXT: spirv.Branch ^[[BODY:bb[0-9]+]]
// CHECK-NEXT: ^[[BODY]]:
// CHECK-NEXT: spirv.IAdd %[[I]]
// CHECK-NEXT: spirv.mlir.loop {
// The inner loop's header holds no nested construct: not split.
// CHECK-NEXT: spirv.Branch ^[[INNER:bb[0-9]+]](
// CHECK-NEXT: ^[[INNER]](%{{.*}}: i32):
// CHECK-NEXT: spirv.SLessThan
// CHECK-NEXT: spirv.BranchConditional

// CHECK-LABEL: spirv.func @flat
// CHECK: ^[[FLAT:bb[0-9]+]](%{{.*}}: i32):
// CHECK-NEXT: spirv.SLessThan
// CHECK-NEXT: spirv.BranchConditional

spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @out bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
  spirv.func @nested() "None" {
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c3 = spirv.Constant 3 : i32
    spirv.mlir.loop {
      spirv.Branch ^header(%c0 : i32)
    ^header(%i: i32):
      %next = spirv.IAdd %i, %c1 : i32
      spirv.mlir.loop {
        spirv.Branch ^inner(%next : i32)
      ^inner(%j: i32):
        %more = spirv.SLessThan %j, %c3 : i32
        spirv.BranchConditional %more, ^body, ^exit
      ^body:
        %addr = spirv.mlir.addressof @out : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
        %p = spirv.AccessChain %addr[%c0, %j] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
        spirv.Store "StorageBuffer" %p, %i : i32
        %j1 = spirv.IAdd %j, %c1 : i32
        spirv.Branch ^inner(%j1 : i32)
      ^exit:
        spirv.mlir.merge
      }
      %again = spirv.SLessThan %next, %c3 : i32
      spirv.BranchConditional %again, ^continue, ^done
    ^continue:
      spirv.Branch ^header(%next : i32)
    ^done:
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.func @flat() "None" {
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c3 = spirv.Constant 3 : i32
    spirv.mlir.loop {
      spirv.Branch ^header(%c0 : i32)
    ^header(%i: i32):
      %more = spirv.SLessThan %i, %c3 : i32
      spirv.BranchConditional %more, ^body, ^done
    ^body:
      %addr = spirv.mlir.addressof @out : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
      %p = spirv.AccessChain %addr[%c0, %i] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
      spirv.Store "StorageBuffer" %p, %i : i32
      %next = spirv.IAdd %i, %c1 : i32
      spirv.Branch ^header(%next : i32)
    ^done:
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @nested
  spirv.ExecutionMode @nested "LocalSize", 1, 1, 1
  spirv.EntryPoint "GLCompute" @flat
  spirv.ExecutionMode @flat "LocalSize", 1, 1, 1
}

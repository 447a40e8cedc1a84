// RUN: sluice-opt %s --pass-pipeline='builtin.module(spirv.module(sluice-spirv-push-constants))' -verify-diagnostics

// A scalar kernel argument's block read whole, not through an access chain
// to its one member: the push-constant block has no such object to load.
spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @count bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
  spirv.func @k() "None" {
    %ptr = spirv.mlir.addressof @count : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>
    // expected-error @+1 {{'spirv.Load' op reads the scalar kernel argument @count other than through one access-chain index; cannot move it to the push-constant block}}
    %whole = spirv.Load "StorageBuffer" %ptr : !spirv.struct<(i32 [0])>
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @k
  spirv.ExecutionMode @k "LocalSize", 1, 1, 1
}

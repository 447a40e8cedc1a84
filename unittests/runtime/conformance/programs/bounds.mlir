// Conformance: bounds faults (adapter_conformance_test.cpp, Fault*), compiled
// with --sluice-check-bounds. As test/Integration/Inputs/bounds.mlir: lane i
// copies table[i] into out[i] (8 elements) after a suspension.
wave.coroutine @oob(%lane: i32)
    bind(%table: memref<?xi32> readonly, %out: memref<8xi32> writeonly) {
  %i = arith.index_cast %lane : i32 to index
  wave.suspend "lookup"
  %v = memref.load %table[%i] : memref<?xi32>
  memref.store %v, %out[%i] : memref<8xi32>
  wave.terminate
}

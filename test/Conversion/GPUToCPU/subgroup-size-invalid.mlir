// The CPU's subgroup size is a power of two from 1 to 128.
// RUN: not sluice-opt %s --convert-gpu-to-cpu=subgroup-size=24 2>&1 | FileCheck %s
// CHECK: error: convert-gpu-to-cpu: subgroup-size must be a power of two from 1 to 128, got 24
module attributes {gpu.container_module} {
}

// RUN: sluice-opt --sluice-fuse-multiply-add %s | FileCheck %s

// CHECK-LABEL: func.func @forms
// CHECK-SAME: (%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32)
// a * b + c and c + a * b: fma(a, b, c).
// CHECK: %[[F0:.*]] = math.fma %[[A]], %[[B]], %[[C]] : f32
// CHECK: %[[F1:.*]] = math.fma %[[A]], %[[B]], %[[C]] : f32
// a * b - c: fma(a, b, -c).
// CHECK: %[[N2:.*]] = arith.negf %[[C]] : f32
// CHECK: %[[F2:.*]] = math.fma %[[A]], %[[B]], %[[N2]] : f32
// c - a * b: fma(-a, b, c).
// CHECK: %[[N3:.*]] = arith.negf %[[A]] : f32
// CHECK: %[[F3:.*]] = math.fma %[[N3]], %[[B]], %[[C]] : f32
// The product is gone once every use is fused; no contract flag is left.
// CHECK-NOT: arith.mulf
// CHECK-NOT: contract
// CHECK: return %[[F0]], %[[F1]], %[[F2]], %[[F3]]
func.func @forms(%a: f32, %b: f32, %c: f32) -> (f32, f32, f32, f32) {
  %p = arith.mulf %a, %b fastmath<contract> : f32
  %0 = arith.addf %p, %c fastmath<contract> : f32
  %1 = arith.addf %c, %p fastmath<contract> : f32
  %2 = arith.subf %p, %c fastmath<contract> : f32
  %3 = arith.subf %c, %p fastmath<contract> : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}

// Both operations must allow it; a product with another use stays for that
// use, and the flags besides `contract` stay.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%[[A:.*]]: f64, %[[B:.*]]: f64, %[[C:.*]]: f64)
// CHECK: %[[P:.*]] = arith.mulf %[[A]], %[[B]] fastmath<nnan> : f64
// CHECK: %[[S0:.*]] = arith.addf %[[P]], %[[C]] : f64
// CHECK: %[[Q:.*]] = arith.mulf %[[A]], %[[C]] : f64
// CHECK: %[[S1:.*]] = arith.subf %[[Q]], %[[B]] fastmath<nnan> : f64
// CHECK: %[[F:.*]] = math.fma %[[A]], %[[B]], %[[C]] fastmath<nnan> : f64
// CHECK: return %[[S0]], %[[S1]], %[[F]], %[[P]]
func.func @kept(%a: f64, %b: f64, %c: f64) -> (f64, f64, f64, f64) {
  %p = arith.mulf %a, %b fastmath<nnan,contract> : f64
  %0 = arith.addf %p, %c : f64
  %q = arith.mulf %a, %c : f64
  %1 = arith.subf %q, %b fastmath<nnan,contract> : f64
  %2 = arith.addf %p, %c fastmath<nnan,contract> : f64
  return %0, %1, %2, %p : f64, f64, f64, f64
}

// A dot product: the adds fuse left to right, each with its first product.
// CHECK-LABEL: func.func @dot
// CHECK-SAME: (%[[AX:[^:]*]]: f32, %[[AY:[^:]*]]: f32, %[[AZ:[^:]*]]: f32, %[[BX:[^:]*]]: f32, %[[BY:[^:]*]]: f32, %[[BZ:[^:]*]]: f32)
// CHECK: %[[YY:.*]] = arith.mulf %[[AY]], %[[BY]] : f32
// CHECK: %[[XY:.*]] = math.fma %[[AX]], %[[BX]], %[[YY]] : f32
// CHECK: %[[XYZ:.*]] = math.fma %[[AZ]], %[[BZ]], %[[XY]] : f32
// CHECK: return %[[XYZ]]
func.func @dot(%ax: f32, %ay: f32, %az: f32, %bx: f32, %by: f32, %bz: f32) -> f32 {
  %x = arith.mulf %ax, %bx fastmath<contract> : f32
  %y = arith.mulf %ay, %by fastmath<contract> : f32
  %z = arith.mulf %az, %bz fastmath<contract> : f32
  %xy = arith.addf %x, %y fastmath<contract> : f32
  %xyz = arith.addf %xy, %z fastmath<contract> : f32
  return %xyz : f32
}

// Operations whose fastmath attribute is optional and absent (truncf, extf)
// are left alone.
// CHECK-LABEL: func.func @optional
// CHECK: arith.truncf
// CHECK: arith.extf
func.func @optional(%a: f32) -> (f16, f64) {
  %t = arith.truncf %a : f32 to f16
  %e = arith.extf %a : f32 to f64
  return %t, %e : f16, f64
}

// Nothing else changes: an unused product and constant stay.
// CHECK-LABEL: func.func @untouched
// CHECK: arith.constant 2.0
// CHECK: arith.mulf
func.func @untouched(%a: f32) {
  %c = arith.constant 2.0 : f32
  %unused = arith.mulf %a, %c : f32
  return
}

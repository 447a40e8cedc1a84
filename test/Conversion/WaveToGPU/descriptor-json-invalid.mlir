// A hand-written program descriptor holding an attribute the JSON form has
// no value for (convert-wave-to-gpu writes integers, strings, symbols,
// types, arrays and dictionaries only): exit 1, the attribute named.
// RUN: %expect-exit 1 sluice-translate %s --sluice-to-descriptor-json 2>&1 | FileCheck %s
// CHECK: {{^}}<unknown>:0: error: the program descriptor holds an attribute JSON has no form for: 1.500000e+00 : f32{{$}}
module attributes {sluice.program = {name = "p", weight = 1.5 : f32}} {
}

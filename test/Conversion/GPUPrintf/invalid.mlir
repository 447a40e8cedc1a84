// RUN: sluice-opt --sluice-lower-gpu-printf --split-input-file --verify-diagnostics %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      // expected-error @+1 {{'gpu.printf' op format "%s\0A": unsupported conversion '%s' (supported: %d %i %u %x %X %f %F %e %E %g %G with flags, width, precision and l/ll, and %%)}}
      gpu.printf "%s\n", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      // expected-error @+1 {{'gpu.printf' op format "%*d": unsupported conversion '%*' (supported:}}
      gpu.printf "%*d", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      // expected-error @+1 {{'gpu.printf' op format "x=%": the conversion '%' at the end of the format is incomplete}}
      gpu.printf "x=%", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i16) kernel {
      // expected-error @+1 {{'gpu.printf' op argument 0 has type 'i16': gpu.printf prints i32, i64, index, f32 and f64}}
      gpu.printf "%d", %x : i16
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: f32) kernel {
      // expected-error @+1 {{'gpu.printf' op conversion 0 ('%d') takes an integer but argument 0 has type 'f32'}}
      gpu.printf "%d", %x : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      // expected-error @+1 {{'gpu.printf' op conversion 0 ('%5.1f') takes a float but argument 0 has type 'i32'}}
      gpu.printf "%5.1f", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      // expected-error @+1 {{'gpu.printf' op format "%d %d" has more conversions than its 1 arguments}}
      gpu.printf "%d %d", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      // expected-error @+1 {{'gpu.printf' op format "x" has 0 conversions but the op has 1 arguments}}
      gpu.printf "x", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @helper(%x: i32) {
      // expected-error @+1 {{'gpu.printf' op outside a gpu.func kernel: the record buffer is a kernel argument, so only kernels print}}
      gpu.printf "%d", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'gpu.func' op prints (gpu.printf) but no gpu.launch_func of this module launches it: the host prints the records after each launch}}
    gpu.func @k(%x: i32) kernel {
      gpu.printf "%d", %x : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: i32) kernel {
      gpu.printf "%d", %x : i32
      gpu.return
    }
  }
  func.func @main(%x: i32) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-error @+1 {{'gpu.launch_func' op is asynchronous and its kernel prints: the host prints gpu.printf records when the launch is done}}
    %d = gpu.launch_func async [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : i32)
    return
  }
}

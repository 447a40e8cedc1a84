// convert-wave-to-gpu needs the split form.
// RUN: sluice-opt %s -verify-diagnostics --convert-wave-to-gpu

// expected-error @below {{'wave.coroutine' op is not split; run wave-split first}}
wave.coroutine @path() {
  wave.suspend "s"
  wave.terminate
}

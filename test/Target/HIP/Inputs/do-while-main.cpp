// Runs the kernel of do-while-loops.mlir on the host (host-run.test).
#include <cstdint>
#include <cstdio>
extern "C" void loops_nested(int32_t *out, int64_t size);
int main() {
  int32_t out[1] = {-1};
  loops_nested(out, 1);
  std::printf("total %d\n", out[0]);
  return 0;
}

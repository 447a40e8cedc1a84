/* Entry point of an ahead-of-time compiled Sluice program (bench/vulkan/aot.sh):
 * the program's @main is renamed sluice_program_main; the printers are the
 * ones sluice-run registers for JIT-compiled code. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

void sluice_program_main(void);

void sluice_print_i64(int64_t value) {
  printf("%" PRId64 "\n", value);
  fflush(stdout);
}

void sluice_print_f64(double value) {
  printf("%.17g\n", value);
  fflush(stdout);
}

int main(void) {
  sluice_program_main();
  return 0;
}

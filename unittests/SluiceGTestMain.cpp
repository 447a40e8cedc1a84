//===- SluiceGTestMain.cpp - main() of every GoogleTest binary ------------===//
//
// GoogleTest's own main passes a run that runs no test. This one fails when
// the filter selects no test, and exits 77 (ctest's SKIP_RETURN_CODE for
// whole-binary runs) when every selected test skipped.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  int result = RUN_ALL_TESTS();
  if (GTEST_FLAG_GET(list_tests))
    return result;
  const ::testing::UnitTest &unit = *::testing::UnitTest::GetInstance();
  if (unit.test_to_run_count() == 0) {
    std::fprintf(stderr,
                 "error: no test ran: the filter '%s' selects none of the %d "
                 "tests in this binary\n",
                 GTEST_FLAG_GET(filter).c_str(), unit.total_test_count());
    return 1;
  }
  if (result == 0 && unit.skipped_test_count() == unit.test_to_run_count()) {
    std::printf("skipped: all %d selected tests skipped\n",
                unit.skipped_test_count());
    return 77;
  }
  return result;
}

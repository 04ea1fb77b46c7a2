// Sizes the compiler took to be equal (descriptor `equal` records): the runtime evaluates
// their text (sums, quotients, max/min of the symbolic dims) before each run and fails a
// run where they differ, before the model's code runs.
#include "test_util.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

using namespace dlc_test;

namespace {

std::atomic<int> gRuns{0};
int32_t countingEntry(void **, void *) {
  ++gRuns;
  return 0;
}

// x [a, b] and y [c]: the model took a + b == c, max(a-2, 0) == b // 2 and 2*a == c.
const char kDescriptor[] = "dlc-module 1\n"
                           "dim a 1 8\n"
                           "dim b 1 8\n"
                           "dim c 1 16\n"
                           "input x 1 2 ?a ?b\n"
                           "input y 1 1 ?c\n"
                           "output z 1 0\n"
                           "equal %28a%2Bb%29 c 1\n"
                           "equal max%28%28a-2%29%2C0%29 %28b%2F%2F2%29 2\n"
                           "equal 2%2Aa c 3\n"
                           "error 1 first%20check\n"
                           "error 2 second%20check\n"
                           "error 3 third%20check\n";

dlc_status_t runWith(dlc_session_t *s, int64_t a, int64_t b, int64_t c) {
  dlc_tensor_t *x = nullptr, *y = nullptr, *z = nullptr;
  int64_t xs[] = {a, b}, ys[] = {c};
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 2, xs, &x) == DLC_OK);
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 1, ys, &y) == DLC_OK);
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 0, nullptr, &z) == DLC_OK);
  const dlc_tensor_t *inputs[] = {x, y};
  dlc_tensor_t *outputs[] = {z};
  dlc_status_t st = dlc_session_run(s, inputs, 2, outputs, 1);
  dlc_tensor_free(x);
  dlc_tensor_free(y);
  dlc_tensor_free(z);
  return st;
}

} // namespace

TEST_CASE("equal records: runs whose sizes differ fail before the model runs",
          "[runtime][session][dims]") {
  dlc_module_t *m = nullptr;
  REQUIRE(dlc_module_create_from_symbols(kDescriptor, countingEntry, nullptr, nullptr, &m) ==
          DLC_OK);
  dlc_session_t *s = nullptr;
  REQUIRE(dlc_session_create(m, 1, &s) == DLC_OK);
  gRuns = 0;
  // a=4, b=4, c=8: 4+4 = 8, max(2, 0) = 4//2 = 2, 2*4 = 8.
  CHECK(runWith(s, 4, 4, 8) == DLC_OK);
  CHECK(gRuns == 1);
  CHECK(runWith(s, 4, 4, 7) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "first check (here 8 and 7)");
  // a=2, b=2, c=4: 2+2 = 4, max(0, 0) = 0 but 2//2 = 1.
  CHECK(runWith(s, 2, 2, 4) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "second check (here 0 and 1)");
  // a=1, b=1, c=2: max(-1, 0) = 0 = 1//2; 2*1 = 2.
  CHECK(runWith(s, 1, 1, 2) == DLC_OK);
  CHECK(gRuns == 2);
  dlc_session_free(s);
  dlc_module_free(m);
}

TEST_CASE("equal records: malformed ones are rejected when loading", "[runtime][module][dims]") {
  const std::string head = "dlc-module 1\ndim a 1 8\ninput x 1 1 ?a\noutput y 1 0\n";
  auto expectBad = [](const std::string &descriptor, const std::string &fragment) {
    dlc_module_t *m = nullptr;
    INFO(descriptor);
    CHECK(dlc_module_create_from_symbols(descriptor.c_str(), countingEntry, nullptr, nullptr,
                                         &m) == DLC_ERROR_BAD_MODULE);
    CHECK(m == nullptr);
    CHECK_THAT(message(), Catch::Contains(fragment));
  };
  expectBad(head + "equal\n", "equal record without sizes");
  expectBad(head + "equal a\n", "equal record with one size");
  expectBad(head + "equal a 2\nerror 1 m\n", "equal record without an error code");
  expectBad(head + "equal a 2 0\nerror 1 m\n", "equal record without an error code");
  expectBad(head + "equal a 2 1 x\nerror 1 m\n", "equal record has trailing 'x'");
  expectBad(head + "equal a 2 2\nerror 1 m\n", "equal record 1 names error 2, which is not declared");
  expectBad(head + "equal a 2 1\noutput z 1 0\nerror 1 m\n",
            "records out of order (equal records come before errors, after the rest)");
  expectBad(head + "error 1 m\nequal a 2 1\n", "records out of order (error records come last)");
}

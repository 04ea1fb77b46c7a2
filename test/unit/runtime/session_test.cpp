// session_test.cpp - tests for dlc_session_t: running in-process and dlopen'ed models, argument validation.
#include <cstring>
#include "test_util.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

using namespace dlc_test;

namespace {

// "add one": y = x + 1 over a [2,3] f32 tensor.
const char kAddOneDescriptor[] = "dlc-module 1\n"
                                 "input x 1 2 2 3\n"
                                 "output y 1 2 2 3\n";

std::atomic<void *> gLastCtx{nullptr};

int32_t addOneEntry(void **buffers, void *runtime_ctx) {
  gLastCtx = runtime_ctx;
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int i = 0; i < 6; ++i)
    y[i] = x[i] + 1.0f;
  return 0;
}

int32_t failingEntry(void **, void *) { return 7; }
int32_t secondCheckFails(void **, void *) { return 2; }

// "scale": y[i] = 2 * x[i] over 100000 elements, through parallel_for.
const char kScaleDescriptor[] = "dlc-module 1\n"
                                "input x 11 1 100000\n"
                                "output y 11 1 100000\n";
struct ScaleClosure {
  const double *x;
  double *y;
};
void scaleBody(void *closure, int64_t begin, int64_t end) {
  auto *c = static_cast<ScaleClosure *>(closure);
  for (int64_t i = begin; i < end; ++i)
    c->y[i] = 2 * c->x[i];
}
int32_t scaleEntry(void **buffers, void *runtime_ctx) {
  ScaleClosure c{static_cast<const double *>(buffers[0]),
                 static_cast<double *>(buffers[1])};
  dlc_runtime_parallel_for(runtime_ctx, 100000, scaleBody, &c);
  return 0;
}

// AddressSanitizer ignores a program's own SIGSEGV/SIGBUS/SIGFPE handlers unless told
// otherwise (the runtime's fault guards install one; ASAN_OPTIONS still overrides this).
extern "C" const char *__asan_default_options() { return "allow_user_segv_handler=1"; }

// Faults a model's code could raise: a store to an unmapped page, a trap instruction.
void storeToUnmapped() { *reinterpret_cast<volatile int *>(static_cast<uintptr_t>(16)) = 1; }
int32_t segvEntry(void **, void *) {
  storeToUnmapped();
  return 0;
}
int32_t trapEntry(void **, void *) { __builtin_trap(); }
// "scale" whose pieces fault while gFault is set: the last one (on whichever thread claims
// it), or with gFaultAll every one (so workers fault too, not only the caller).
std::atomic<bool> gFault{true}, gFaultAll{false};
void faultingScaleBody(void *closure, int64_t begin, int64_t end) {
  if ((end == 100000 || gFaultAll.load()) && gFault.load())
    storeToUnmapped();
  scaleBody(closure, begin, end);
}
int32_t faultingScaleEntry(void **buffers, void *runtime_ctx) {
  ScaleClosure c{static_cast<const double *>(buffers[0]), static_cast<double *>(buffers[1])};
  dlc_runtime_parallel_for(runtime_ctx, 100000, faultingScaleBody, &c);
  return 0;
}

ModulePtr makeModule(const char *descriptor, dlc_abi_entry_fn entry) {
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(descriptor, entry, nullptr, nullptr,
                                         &raw) == DLC_OK);
  return ModulePtr(raw);
}

SessionPtr makeSession(const dlc_module_t *m, int32_t threads) {
  dlc_session_t *raw = nullptr;
  REQUIRE(dlc_session_create(m, threads, &raw) == DLC_OK);
  return SessionPtr(raw);
}

TensorPtr makeTensor(dlc_dtype_t dtype, std::vector<int64_t> shape) {
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_create(dtype, static_cast<int32_t>(shape.size()),
                            shape.data(), &raw) == DLC_OK);
  return TensorPtr(raw);
}

float *floats(const TensorPtr &t) {
  return static_cast<float *>(dlc_tensor_data(t.get()));
}

} // namespace

TEST_CASE("session runs an in-process add-one model", "[runtime][session]") {
  ModulePtr m = makeModule(kAddOneDescriptor, addOneEntry);
  SessionPtr s = makeSession(m.get(), 2);
  CHECK(dlc_session_num_threads(s.get()) == 2);
  CHECK(dlc_session_module(s.get()) == m.get());
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  for (int i = 0; i < 6; ++i)
    floats(x)[i] = static_cast<float>(i) * 0.5f;

  dlc_tensor_t *out = nullptr;
  REQUIRE(dlc_session_create_outputs(s.get(), &out) == DLC_OK);
  TensorPtr y(out);
  CHECK(dlc_tensor_dtype(y.get()) == DLC_DTYPE_FLOAT);
  CHECK(dlc_tensor_num_elements(y.get()) == 6);

  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *outputs[] = {y.get()};
  for (int run = 0; run < 3; ++run) { // buffers are reused across runs
    floats(x)[0] = static_cast<float>(run);
    REQUIRE(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
    CHECK(floats(y)[0] == static_cast<float>(run) + 1.0f);
    CHECK(floats(y)[5] == 3.5f);
    CHECK(gLastCtx.load() == s.get()); // the session is the runtime_ctx
  }
}

TEST_CASE("session run validates counts, dtypes, shapes and aliasing",
          "[runtime][session]") {
  ModulePtr m = makeModule(kAddOneDescriptor, addOneEntry);
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  TensorPtr y = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  const dlc_tensor_t *inputs[] = {x.get(), x.get()};
  dlc_tensor_t *outputs[] = {y.get()};

  CHECK(dlc_session_run(s.get(), inputs, 2, outputs, 1) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "module '<in-process>': expected 1 inputs, got 2");
  CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 0) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "module '<in-process>': expected 1 outputs, got 0");

  const dlc_tensor_t *null_input[] = {nullptr};
  CHECK(dlc_session_run(s.get(), null_input, 1, outputs, 1) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "input 'x': tensor is null");
  CHECK(dlc_session_run(s.get(), nullptr, 1, outputs, 1) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_session_run(nullptr, inputs, 1, outputs, 1) ==
        DLC_ERROR_INVALID_ARGUMENT);

  TensorPtr wrongDtype = makeTensor(DLC_DTYPE_INT64, {2, 3});
  const dlc_tensor_t *bad_dtype[] = {wrongDtype.get()};
  CHECK(dlc_session_run(s.get(), bad_dtype, 1, outputs, 1) ==
        DLC_ERROR_DTYPE_MISMATCH);
  CHECK(message() == "input 'x': expected dtype f32, got i64");

  TensorPtr wrongShape = makeTensor(DLC_DTYPE_FLOAT, {2, 4});
  const dlc_tensor_t *bad_shape[] = {wrongShape.get()};
  CHECK(dlc_session_run(s.get(), bad_shape, 1, outputs, 1) ==
        DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'x': expected shape [2,3], got [2,4]");

  TensorPtr wrongRank = makeTensor(DLC_DTYPE_FLOAT, {6});
  const dlc_tensor_t *bad_rank[] = {wrongRank.get()};
  CHECK(dlc_session_run(s.get(), bad_rank, 1, outputs, 1) ==
        DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'x': expected shape [2,3], got [6]");

  TensorPtr scalar = makeTensor(DLC_DTYPE_FLOAT, {});
  dlc_tensor_t *bad_output[] = {scalar.get()};
  CHECK(dlc_session_run(s.get(), inputs, 1, bad_output, 1) ==
        DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "output 'y': expected shape [2,3], got []");

  // An output viewing the input's memory (shifted by one element).
  std::vector<float> shared(7);
  const int64_t shape[] = {2, 3};
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape, shared.data(), &raw) ==
          DLC_OK);
  TensorPtr in(raw);
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape, shared.data() + 1,
                          &raw) == DLC_OK);
  TensorPtr aliased(raw);
  const dlc_tensor_t *alias_in[] = {in.get()};
  dlc_tensor_t *alias_out[] = {aliased.get()};
  CHECK(dlc_session_run(s.get(), alias_in, 1, alias_out, 1) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "output 'y' overlaps input 'x'");

  // After all that, a valid run still works.
  CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
}

TEST_CASE("session reports a failing entry as internal",
          "[runtime][session]") {
  ModulePtr m = makeModule(kAddOneDescriptor, failingEntry);
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  TensorPtr y = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *outputs[] = {y.get()};
  CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) ==
        DLC_ERROR_INTERNAL);
  CHECK(message() == "module '<in-process>': entry returned 7");
}

TEST_CASE("session reports a failed run-time check by its message",
          "[runtime][session]") {
  const char descriptor[] = "dlc-module 1\n"
                            "input x 1 2 2 3\n"
                            "output y 1 2 2 3\n"
                            "error 1 first\n"
                            "error 2 node%20%27g%27%20%28Gather%29%3A%20out%20of%20range\n";
  ModulePtr m = makeModule(descriptor, secondCheckFails);
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  TensorPtr y = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *outputs[] = {y.get()};
  CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "node 'g' (Gather): out of range");
  // A code without a record is an internal failure.
  ModulePtr bare = makeModule(kAddOneDescriptor, secondCheckFails);
  SessionPtr t = makeSession(bare.get(), 1);
  CHECK(dlc_session_run(t.get(), inputs, 1, outputs, 1) == DLC_ERROR_INTERNAL);
  CHECK(message() == "module '<in-process>': entry returned 2");
}

TEST_CASE("a fault in the model's code fails the run, not the process",
          "[runtime][session]") {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
  WARN("not in a ThreadSanitizer build: TSan owns signal delivery, so the runtime keeps the "
       "default action there (dlc_fault.c)");
  return;
#endif
#endif
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  TensorPtr y = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *outputs[] = {y.get()};
  ModulePtr segv = makeModule(kAddOneDescriptor, segvEntry);
  SessionPtr s = makeSession(segv.get(), 1);
  for (int run = 0; run < 3; ++run) { // and again: the signal is not left blocked
    CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_ERROR_INTERNAL);
    CHECK(message().find("module '<in-process>': the model's code raised SIGSEGV (invalid "
                         "memory access) at address 0x10") == 0);
  }
  ModulePtr trap = makeModule(kAddOneDescriptor, trapEntry);
  SessionPtr t = makeSession(trap.get(), 1);
  CHECK(dlc_session_run(t.get(), inputs, 1, outputs, 1) == DLC_ERROR_INTERNAL);
  CHECK(message().find("raised SIGILL (illegal instruction)") != std::string::npos);

  // In a parallel loop: whichever thread runs the faulting piece, the run fails once
  // every piece is done, and the session's pool keeps working.
  ModulePtr scale = makeModule(kScaleDescriptor, faultingScaleEntry);
  TensorPtr a = makeTensor(DLC_DTYPE_DOUBLE, {100000});
  TensorPtr b = makeTensor(DLC_DTYPE_DOUBLE, {100000});
  auto *ad = static_cast<double *>(dlc_tensor_data(a.get()));
  auto *bd = static_cast<double *>(dlc_tensor_data(b.get()));
  for (int i = 0; i < 100000; ++i)
    ad[i] = i;
  const dlc_tensor_t *in[] = {a.get()};
  dlc_tensor_t *out[] = {b.get()};
  for (int32_t threads : {1, 4}) {
    INFO(threads << " threads");
    SessionPtr p = makeSession(scale.get(), threads);
    gFault = true;
    for (int run = 0; run < 10; ++run) {
      gFaultAll = run % 2 == 1;
      CHECK(dlc_session_run(p.get(), in, 1, out, 1) == DLC_ERROR_INTERNAL);
      CHECK(message().find("raised SIGSEGV") != std::string::npos);
    }
    gFault = false;
    for (int run = 0; run < 5; ++run)
      REQUIRE(dlc_session_run(p.get(), in, 1, out, 1) == DLC_OK);
    int wrong = 0;
    for (int i = 0; i < 100000; ++i)
      wrong += bd[i] != 2.0 * i;
    CHECK(wrong == 0);
  }
}

TEST_CASE("session thread counts", "[runtime][session]") {
  ModulePtr m = makeModule(kAddOneDescriptor, addOneEntry);
  SessionPtr automatic = makeSession(m.get(), 0);
  CHECK(dlc_session_num_threads(automatic.get()) >= 1);
  SessionPtr negative = makeSession(m.get(), -3);
  CHECK(dlc_session_num_threads(negative.get()) ==
        dlc_session_num_threads(automatic.get()));
  dlc_session_t *raw = reinterpret_cast<dlc_session_t *>(0x1);
  CHECK(dlc_session_create(m.get(), 5000, &raw) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(raw == nullptr);
  CHECK(message() == "num_threads 5000 exceeds the maximum of 4096");
  CHECK(dlc_session_create(nullptr, 1, &raw) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_session_num_threads(nullptr) == 0);
  dlc_session_free(nullptr);
}

TEST_CASE("session runs a parallel model with 1, 2 and 4 threads",
          "[runtime][session]") {
  ModulePtr m = makeModule(kScaleDescriptor, scaleEntry);
  for (int32_t threads : {1, 2, 4}) {
    INFO(threads << " threads");
    SessionPtr s = makeSession(m.get(), threads);
    TensorPtr x = makeTensor(DLC_DTYPE_DOUBLE, {100000});
    TensorPtr y = makeTensor(DLC_DTYPE_DOUBLE, {100000});
    auto *xd = static_cast<double *>(dlc_tensor_data(x.get()));
    for (int i = 0; i < 100000; ++i)
      xd[i] = i;
    const dlc_tensor_t *inputs[] = {x.get()};
    dlc_tensor_t *outputs[] = {y.get()};
    for (int run = 0; run < 20; ++run)
      REQUIRE(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
    auto *yd = static_cast<double *>(dlc_tensor_data(y.get()));
    int wrong = 0;
    for (int i = 0; i < 100000; ++i)
      wrong += yd[i] != 2.0 * i;
    CHECK(wrong == 0);
  }
}

TEST_CASE("session runs the dlopen'ed fake model", "[runtime][session]") {
  dlc_module_t *rawModule = nullptr;
  REQUIRE(dlc_module_load(DLC_FAKE_MODEL_PATH, &rawModule) == DLC_OK);
  ModulePtr m(rawModule);
  for (int32_t threads : {1, 4}) {
    SessionPtr s = makeSession(m.get(), threads);
    TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
    TensorPtr bias = makeTensor(DLC_DTYPE_FLOAT, {3});
    for (int i = 0; i < 6; ++i)
      floats(x)[i] = static_cast<float>(i);
    floats(bias)[0] = 10;
    floats(bias)[1] = 20;
    floats(bias)[2] = 30;
    dlc_tensor_t *outs[2] = {nullptr, nullptr};
    REQUIRE(dlc_session_create_outputs(s.get(), outs) == DLC_OK);
    TensorPtr y(outs[0]), count(outs[1]);
    CHECK(dlc_tensor_rank(count.get()) == 0);
    const dlc_tensor_t *inputs[] = {x.get(), bias.get()};
    REQUIRE(dlc_session_run(s.get(), inputs, 2, outs, 2) == DLC_OK);
    const float expected[6] = {10, 21, 32, 13, 24, 35};
    for (int i = 0; i < 6; ++i)
      CHECK(floats(y)[i] == expected[i]);
    CHECK(*static_cast<int64_t *>(dlc_tensor_data(count.get())) == 6);

    // The decoded output name appears in messages.
    TensorPtr wrong = makeTensor(DLC_DTYPE_FLOAT, {3, 2});
    dlc_tensor_t *bad_outs[2] = {wrong.get(), count.get()};
    CHECK(dlc_session_run(s.get(), inputs, 2, bad_outs, 2) ==
          DLC_ERROR_SHAPE_MISMATCH);
    CHECK(message() == "output 'y out': expected shape [2,3], got [3,2]");
    TensorPtr f32Scalar = makeTensor(DLC_DTYPE_FLOAT, {});
    dlc_tensor_t *bad_dtype_outs[2] = {y.get(), f32Scalar.get()};
    CHECK(dlc_session_run(s.get(), inputs, 2, bad_dtype_outs, 2) ==
          DLC_ERROR_DTYPE_MISMATCH);
    CHECK(message() == "output 'count': expected dtype i64, got f32");
  }
}

TEST_CASE("outputs may not alias each other", "[runtime][session]") {
  const char *descriptor = "dlc-module 1\noutput a 6 1 4\noutput b 6 1 4\n";
  ModulePtr m = makeModule(descriptor, failingEntry);
  SessionPtr s = makeSession(m.get(), 1);
  int32_t storage[4] = {};
  const int64_t shape[] = {4};
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_INT32, 1, shape, storage, &raw) == DLC_OK);
  TensorPtr a(raw);
  dlc_tensor_t *outs[] = {a.get(), a.get()};
  CHECK(dlc_session_run(s.get(), nullptr, 0, outs, 2) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "output 'b' overlaps output 'a'");
}

TEST_CASE("session rejects a value other than a specialized input's", "[runtime][session]") {
  // x is specialized to the int64 values [3, -1] (little-endian hex).
  const char desc[] = "dlc-module 1\n"
                      "input x 7 1 2\n"
                      "value 0300000000000000ffffffffffffffff\n"
                      "output y 1 2 2 3\n";
  ModulePtr m = makeModule(desc, [](void **, void *) -> int32_t { return 0; });
  SessionPtr s = makeSession(m.get(), 1);
  int64_t shape[] = {2};
  int64_t good[] = {3, -1}, bad[] = {3, 1};
  int64_t yshape[] = {2, 3};
  float y[6];
  dlc_tensor_t *in = nullptr, *out = nullptr;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_INT64, 1, shape, good, &in) == DLC_OK);
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, yshape, y, &out) == DLC_OK);
  const dlc_tensor_t *ins[] = {in};
  dlc_tensor_t *outs[] = {out};
  CHECK(dlc_session_run(s.get(), ins, 1, outs, 1) == DLC_OK);
  dlc_tensor_free(in);
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_INT64, 1, shape, bad, &in) == DLC_OK);
  ins[0] = in;
  CHECK(dlc_session_run(s.get(), ins, 1, outs, 1) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(dlc_status_message(),
             Catch::Contains("input 'x': the model was compiled for one value of this input"));
  dlc_tensor_free(in);
  dlc_tensor_free(out);
}

namespace {

// A dynamic "add one": y = x + 1 over [2, batch, 3] f32 tensors, batch in [1, 8]. The entry
// reads batch from the dims table after the buffers, as generated code does.
const char kDynamicDescriptor[] = "dlc-module 1\n"
                                  "dim batch 1 8\n"
                                  "input x 1 3 2 ?batch 3\n"
                                  "output y 1 3 2 ?batch 3\n";

std::atomic<int64_t> gLastBatch{-1};
std::atomic<const void *> gLastDimsTable{nullptr};

int32_t dynamicAddOneEntry(void **buffers, void *) {
  const int64_t *dims = static_cast<const int64_t *>(buffers[2]);
  int64_t batch = dims[0];
  gLastBatch = batch;
  gLastDimsTable = dims;
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < 2 * batch * 3; ++i)
    y[i] = x[i] + 1.0f;
  return 0;
}

// Two inputs sharing the symbol; two dims: a = x + y over [batch, n], b = a sum per row
// over [batch]. Only the dims table is checked here (the entry records it).
const char kTwoDimsDescriptor[] = "dlc-module 1\n"
                                  "dim batch 1 64\n"
                                  "dim n 0 100\n"
                                  "input x 1 2 ?batch ?n\n"
                                  "input y 1 2 ?batch ?n\n"
                                  "output a 1 2 ?batch ?n\n"
                                  "output b 1 1 ?batch\n"
                                  "output c 7 0\n";
std::vector<int64_t> gLastDims;
int32_t recordDimsEntry(void **buffers, void *) {
  const int64_t *dims = static_cast<const int64_t *>(buffers[5]);
  gLastDims.assign(dims, dims + 2);
  return 0;
}

// A data-dependent output: y = the positive elements of x [8], in order; the entry writes
// their count (the computed dim) into the dims table, as generated code does. gCountBias
// makes it report a wrong count.
const char kComputedDescriptor[] = "dlc-module 1\n"
                                   "dim count 0 8 computed\n"
                                   "input x 1 1 8\n"
                                   "output y 1 1 ?count\n";
int64_t gCountBias = 0;
int32_t positivesEntry(void **buffers, void *) {
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  int64_t n = 0;
  for (int i = 0; i < 8; ++i)
    if (x[i] > 0)
      y[n++] = x[i];
  static_cast<int64_t *>(buffers[2])[0] = n + gCountBias;
  return 0;
}

// A string model: y = upper(x) in the locale `gLocale`, z = x + x, as compiled code calls
// the runtime's string functions (the strings live in the run's arena until copied out).
const char kStringDescriptor[] = "dlc-module 1\n"
                                 "input x 8 1 2\n"
                                 "output y 8 1 2\n"
                                 "output z 8 1 2\n";
const char *gLocale = "en_US";
int32_t upperEntry(void **buffers, void *) {
  auto *x = static_cast<const dlc_abi_string_t *>(buffers[0]);
  auto *y = static_cast<dlc_abi_string_t *>(buffers[1]);
  auto *z = static_cast<dlc_abi_string_t *>(buffers[2]);
  dlc_abi_string_t locale =
      (dlc_abi_string_t)(uintptr_t)gLocale | ((dlc_abi_string_t)std::strlen(gLocale) << 64);
  for (int i = 0; i < 2; ++i) {
    y[i] = dlc_rt_string_upper(x[i], locale);
    z[i] = dlc_rt_string_concat(x[i], x[i]);
  }
  return 0;
}

std::vector<int64_t> shapeOf(const dlc_tensor_t *t) {
  const int64_t *shape = dlc_tensor_shape(t);
  return std::vector<int64_t>(shape, shape + dlc_tensor_rank(t));
}

} // namespace

TEST_CASE("a dynamic model runs at every batch size in its range",
          "[runtime][session][dims]") {
  ModulePtr m = makeModule(kDynamicDescriptor, dynamicAddOneEntry);
  for (int32_t threads : {1, 2}) {
    SessionPtr s = makeSession(m.get(), threads);
    const void *table = nullptr; // the session's, allocated once by dlc_session_create
    for (int64_t batch : {1, 5, 8, 3}) {
      INFO("batch " << batch);
      TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, batch, 3});
      for (int64_t i = 0; i < 2 * batch * 3; ++i)
        floats(x)[i] = static_cast<float>(i) * 0.5f;
      const dlc_tensor_t *inputs[] = {x.get()};
      dlc_tensor_t *out = nullptr;
      REQUIRE(dlc_session_create_outputs_for(s.get(), inputs, 1, &out) == DLC_OK);
      TensorPtr y(out);
      CHECK(shapeOf(y.get()) == std::vector<int64_t>{2, batch, 3});
      CHECK(dlc_tensor_dtype(y.get()) == DLC_DTYPE_FLOAT);
      for (int64_t i = 0; i < 2 * batch * 3; ++i)
        CHECK(floats(y)[i] == 0.0f); // zero-filled
      dlc_tensor_t *outputs[] = {y.get()};
      REQUIRE(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
      CHECK(gLastBatch.load() == batch);
      if (!table)
        table = gLastDimsTable.load();
      CHECK(gLastDimsTable.load() == table);
      int wrong = 0;
      for (int64_t i = 0; i < 2 * batch * 3; ++i)
        wrong += floats(y)[i] != static_cast<float>(i) * 0.5f + 1.0f;
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("a dynamic model rejects out-of-range and inconsistent dims",
          "[runtime][session][dims]") {
  ModulePtr m = makeModule(kDynamicDescriptor, dynamicAddOneEntry);
  SessionPtr s = makeSession(m.get(), 1);
  gLastBatch = -1;
  for (int64_t batch : {0, 9}) {
    TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, batch, 3});
    TensorPtr y = makeTensor(DLC_DTYPE_FLOAT, {2, batch, 3});
    const dlc_tensor_t *inputs[] = {x.get()};
    dlc_tensor_t *outputs[] = {y.get()};
    CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_ERROR_SHAPE_MISMATCH);
    CHECK(message() == "input 'x': dim 1 (batch) is " + std::to_string(batch) +
                           "; the model accepts batch in [1, 8]");
    dlc_tensor_t *created = reinterpret_cast<dlc_tensor_t *>(0x1);
    CHECK(dlc_session_create_outputs_for(s.get(), inputs, 1, &created) ==
          DLC_ERROR_SHAPE_MISMATCH);
    CHECK(created == nullptr);
    CHECK(message() == "input 'x': dim 1 (batch) is " + std::to_string(batch) +
                           "; the model accepts batch in [1, 8]");
  }
  CHECK(gLastBatch.load() == -1); // the entry never ran

  // Rank and static dims: the expected shape names the symbolic dim.
  TensorPtr wrongStatic = makeTensor(DLC_DTYPE_FLOAT, {3, 4, 3});
  TensorPtr wrongRank = makeTensor(DLC_DTYPE_FLOAT, {2, 4});
  TensorPtr y4 = makeTensor(DLC_DTYPE_FLOAT, {2, 4, 3});
  dlc_tensor_t *outputs[] = {y4.get()};
  const dlc_tensor_t *bad_static[] = {wrongStatic.get()};
  CHECK(dlc_session_run(s.get(), bad_static, 1, outputs, 1) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'x': expected shape [2,batch,3], got [3,4,3]");
  const dlc_tensor_t *bad_rank[] = {wrongRank.get()};
  CHECK(dlc_session_run(s.get(), bad_rank, 1, outputs, 1) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'x': expected shape [2,batch,3], got [2,4]");
  dlc_tensor_t *created = nullptr;
  CHECK(dlc_session_create_outputs_for(s.get(), bad_rank, 1, &created) ==
        DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'x': expected shape [2,batch,3], got [2,4]");
  TensorPtr wrongDtype = makeTensor(DLC_DTYPE_DOUBLE, {2, 4, 3});
  const dlc_tensor_t *bad_dtype[] = {wrongDtype.get()};
  CHECK(dlc_session_create_outputs_for(s.get(), bad_dtype, 1, &created) ==
        DLC_ERROR_DTYPE_MISMATCH);
  CHECK(message() == "input 'x': expected dtype f32, got f64");

  // An output of the wrong shape: the expected shape shows this run's batch.
  TensorPtr x4 = makeTensor(DLC_DTYPE_FLOAT, {2, 4, 3});
  TensorPtr y5 = makeTensor(DLC_DTYPE_FLOAT, {2, 5, 3});
  const dlc_tensor_t *inputs[] = {x4.get()};
  dlc_tensor_t *bad_out[] = {y5.get()};
  CHECK(dlc_session_run(s.get(), inputs, 1, bad_out, 1) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "output 'y': expected shape [2,4,3], got [2,5,3]");
  TensorPtr yRank = makeTensor(DLC_DTYPE_FLOAT, {8, 3});
  dlc_tensor_t *bad_out_rank[] = {yRank.get()};
  CHECK(dlc_session_run(s.get(), inputs, 1, bad_out_rank, 1) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "output 'y': expected shape [2,4,3], got [8,3]");
  CHECK(gLastBatch.load() == -1);

  // And a good run after all that.
  REQUIRE(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
  CHECK(gLastBatch.load() == 4);
}

TEST_CASE("inputs sharing a symbolic dim must agree", "[runtime][session][dims]") {
  ModulePtr m = makeModule(kTwoDimsDescriptor, recordDimsEntry);
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {3, 7});
  TensorPtr y = makeTensor(DLC_DTYPE_FLOAT, {3, 7});
  const dlc_tensor_t *inputs[] = {x.get(), y.get()};
  dlc_tensor_t *outs[3] = {nullptr, nullptr, nullptr};
  REQUIRE(dlc_session_create_outputs_for(s.get(), inputs, 2, outs) == DLC_OK);
  TensorPtr a(outs[0]), b(outs[1]), c(outs[2]);
  CHECK(shapeOf(a.get()) == std::vector<int64_t>{3, 7});
  CHECK(shapeOf(b.get()) == std::vector<int64_t>{3});
  CHECK(shapeOf(c.get()) == std::vector<int64_t>{});
  REQUIRE(dlc_session_run(s.get(), inputs, 2, outs, 3) == DLC_OK);
  CHECK(gLastDims == std::vector<int64_t>{3, 7});

  // n may be 0 (its min): empty tensors.
  TensorPtr x0 = makeTensor(DLC_DTYPE_FLOAT, {2, 0});
  TensorPtr y0 = makeTensor(DLC_DTYPE_FLOAT, {2, 0});
  const dlc_tensor_t *empty_inputs[] = {x0.get(), y0.get()};
  dlc_tensor_t *outs0[3] = {nullptr, nullptr, nullptr};
  REQUIRE(dlc_session_create_outputs_for(s.get(), empty_inputs, 2, outs0) == DLC_OK);
  TensorPtr a0(outs0[0]), b0(outs0[1]), c0(outs0[2]);
  CHECK(shapeOf(a0.get()) == std::vector<int64_t>{2, 0});
  REQUIRE(dlc_session_run(s.get(), empty_inputs, 2, outs0, 3) == DLC_OK);
  CHECK(gLastDims == std::vector<int64_t>{2, 0});

  TensorPtr y5 = makeTensor(DLC_DTYPE_FLOAT, {5, 7});
  const dlc_tensor_t *mismatched[] = {x.get(), y5.get()};
  CHECK(dlc_session_run(s.get(), mismatched, 2, outs, 3) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'y': dim 0 (batch) is 5, but input 'x' set batch to 3");
  dlc_tensor_t *created[3] = {nullptr, nullptr, nullptr};
  CHECK(dlc_session_create_outputs_for(s.get(), mismatched, 2, created) ==
        DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'y': dim 0 (batch) is 5, but input 'x' set batch to 3");
  CHECK((created[0] == nullptr && created[1] == nullptr && created[2] == nullptr));
  TensorPtr y8 = makeTensor(DLC_DTYPE_FLOAT, {3, 8});
  const dlc_tensor_t *mismatched_n[] = {x.get(), y8.get()};
  CHECK(dlc_session_run(s.get(), mismatched_n, 2, outs, 3) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'y': dim 1 (n) is 8, but input 'x' set n to 7");
  TensorPtr x101 = makeTensor(DLC_DTYPE_FLOAT, {3, 101});
  const dlc_tensor_t *too_long[] = {x101.get(), y.get()};
  CHECK(dlc_session_run(s.get(), too_long, 2, outs, 3) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'x': dim 1 (n) is 101; the model accepts n in [0, 100]");

  // Outputs: checked against this run's dims.
  TensorPtr b4 = makeTensor(DLC_DTYPE_FLOAT, {4});
  dlc_tensor_t *bad_b[] = {a.get(), b4.get(), c.get()};
  CHECK(dlc_session_run(s.get(), inputs, 2, bad_b, 3) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "output 'b': expected shape [3], got [4]");

  // Counts and null arguments, with create_outputs_for's name.
  CHECK(dlc_session_create_outputs_for(s.get(), inputs, 1, created) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "module '<in-process>': expected 2 inputs, got 1");
  CHECK(dlc_session_create_outputs_for(s.get(), nullptr, 2, created) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dlc_session_create_outputs_for: inputs array is null");
  const dlc_tensor_t *null_input[] = {x.get(), nullptr};
  CHECK(dlc_session_create_outputs_for(s.get(), null_input, 2, created) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "input 'y': tensor is null");
  CHECK(dlc_session_create_outputs_for(nullptr, inputs, 2, created) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dlc_session_create_outputs_for: session is null");
  CHECK(dlc_session_create_outputs_for(s.get(), inputs, 2, nullptr) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dlc_session_create_outputs_for: outputs is null");
}

TEST_CASE("a symbolic dim used twice by one input", "[runtime][session][dims]") {
  ModulePtr m = makeModule("dlc-module 1\ndim n 1 4\ninput sq 1 2 ?n ?n\noutput d 1 1 ?n\n",
                           [](void **, void *) -> int32_t { return 0; });
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr square = makeTensor(DLC_DTYPE_FLOAT, {3, 3});
  TensorPtr oblong = makeTensor(DLC_DTYPE_FLOAT, {3, 2});
  TensorPtr d = makeTensor(DLC_DTYPE_FLOAT, {3});
  dlc_tensor_t *outs[] = {d.get()};
  const dlc_tensor_t *good[] = {square.get()};
  CHECK(dlc_session_run(s.get(), good, 1, outs, 1) == DLC_OK);
  const dlc_tensor_t *bad[] = {oblong.get()};
  CHECK(dlc_session_run(s.get(), bad, 1, outs, 1) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "input 'sq': dim 1 (n) is 2, but input 'sq' set n to 3");
}

TEST_CASE("create_outputs refuses symbolic outputs", "[runtime][session][dims]") {
  ModulePtr m = makeModule(kDynamicDescriptor, dynamicAddOneEntry);
  SessionPtr s = makeSession(m.get(), 1);
  dlc_tensor_t *out = reinterpret_cast<dlc_tensor_t *>(0x1);
  CHECK(dlc_session_create_outputs(s.get(), &out) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
  CHECK(message() == "module '<in-process>': output 'y' has shape [2,batch,3], which "
                     "depends on the inputs: use dlc_session_create_outputs_for");

  // Symbolic inputs with static outputs: create_outputs still works.
  ModulePtr sum = makeModule("dlc-module 1\ndim n 1 9\ninput x 1 1 ?n\noutput total 1 0\n",
                             [](void **, void *) -> int32_t { return 0; });
  SessionPtr t = makeSession(sum.get(), 1);
  REQUIRE(dlc_session_create_outputs(t.get(), &out) == DLC_OK);
  TensorPtr total(out);
  CHECK(dlc_tensor_rank(total.get()) == 0);
}

TEST_CASE("static modules: no dims table, create_outputs_for as create_outputs",
          "[runtime][session][dims]") {
  // The static add-one model gets exactly its two buffers (the entry reads only those),
  // and both ways of creating outputs agree.
  ModulePtr m = makeModule(kAddOneDescriptor, addOneEntry);
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {2, 3});
  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *out = nullptr;
  REQUIRE(dlc_session_create_outputs_for(s.get(), inputs, 1, &out) == DLC_OK);
  TensorPtr y(out);
  CHECK(shapeOf(y.get()) == std::vector<int64_t>{2, 3});
  REQUIRE(dlc_session_create_outputs(s.get(), &out) == DLC_OK);
  TensorPtr y2(out);
  CHECK(shapeOf(y2.get()) == std::vector<int64_t>{2, 3});
  dlc_tensor_t *outputs[] = {y.get()};
  REQUIRE(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
  CHECK(floats(y)[0] == 1.0f);
  TensorPtr wrong = makeTensor(DLC_DTYPE_FLOAT, {3, 2});
  const dlc_tensor_t *bad[] = {wrong.get()};
  CHECK(dlc_session_create_outputs_for(s.get(), bad, 1, &out) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(out == nullptr);
  CHECK(message() == "input 'x': expected shape [2,3], got [3,2]");
}

TEST_CASE("an output with a computed dim takes each run's exact shape",
          "[runtime][session][dims]") {
  ModulePtr m = makeModule(kComputedDescriptor, positivesEntry);
  REQUIRE(dlc_module_num_dims(m.get()) == 1);
  CHECK(dlc_module_dim_is_computed(m.get(), 0) == 1);
  CHECK(dlc_module_dim_is_computed(m.get(), 1) == 0);
  SessionPtr s = makeSession(m.get(), 1);
  // Created at the greatest size; no inputs needed, since no input sets the dim.
  dlc_tensor_t *out = nullptr;
  REQUIRE(dlc_session_create_outputs(s.get(), &out) == DLC_OK);
  TensorPtr y(out);
  CHECK(shapeOf(y.get()) == std::vector<int64_t>{8});
  gCountBias = 0;
  // The same output tensor serves runs of different counts, larger after smaller.
  for (int positives : {3, 0, 8, 5}) {
    INFO(positives << " positives");
    TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {8});
    for (int i = 0; i < 8; ++i)
      floats(x)[i] = i < positives ? float(i + 1) : -1.0f;
    const dlc_tensor_t *inputs[] = {x.get()};
    dlc_tensor_t *outputs[] = {y.get()};
    REQUIRE(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_OK);
    CHECK(shapeOf(y.get()) == std::vector<int64_t>{positives});
    CHECK(dlc_tensor_byte_size(y.get()) == size_t(positives) * sizeof(float));
    for (int i = 0; i < positives; ++i)
      CHECK(floats(y)[i] == float(i + 1));
  }
  // A buffer without room for the greatest size is refused before the run.
  TensorPtr x = makeTensor(DLC_DTYPE_FLOAT, {8});
  TensorPtr small = makeTensor(DLC_DTYPE_FLOAT, {7});
  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *outputs[] = {small.get()};
  CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "output 'y': shape [count] depends on values the model computes; its "
                     "buffer must hold the greatest size (create it with "
                     "dlc_session_create_outputs_for)");
  // A count outside the declared range is the model's fault, reported as internal.
  gCountBias = 9;
  outputs[0] = y.get();
  CHECK(dlc_session_run(s.get(), inputs, 1, outputs, 1) == DLC_ERROR_INTERNAL);
  CHECK_THAT(message(), Catch::Contains("the run computed dim 'count' = 9, outside [0, 8]"));
  gCountBias = 0;
}

TEST_CASE("string outputs own their bytes after the run", "[runtime][session][string]") {
  ModulePtr m = makeModule(kStringDescriptor, upperEntry);
  SessionPtr s = makeSession(m.get(), 1);
  TensorPtr x = makeTensor(DLC_DTYPE_STRING, {2});
  const std::string a = "b\xc3\xa9" "b\xc3\xa9 \xc3\xbc" "n\xc3\xaf 42", b = "";
  REQUIRE(dlc_tensor_set_string(x.get(), 0, a.data(), a.size()) == DLC_OK);
  const dlc_tensor_t *inputs[] = {x.get()};
  dlc_tensor_t *outs[2] = {nullptr, nullptr};
  REQUIRE(dlc_session_create_outputs(s.get(), outs) == DLC_OK);
  TensorPtr y(outs[0]), z(outs[1]);
  auto str = [](const dlc_tensor_t *t, int64_t i) {
    size_t n;
    const char *p = dlc_tensor_string(t, i, &n);
    return std::string(p ? p : "", n);
  };
  for (const char *locale : {"en_US", "C"}) {
    gLocale = locale;
    REQUIRE(dlc_session_run(s.get(), inputs, 1, outs, 2) == DLC_OK);
    // Unicode's case mapping, or ASCII's alone in the C locale.
    CHECK(str(y.get(), 0) == (std::string(locale) == "C"
                                  ? "B\xc3\xa9" "B\xc3\xa9 \xc3\xbc" "N\xc3\xaf 42"
                                  : "B\xc3\x89" "B\xc3\x89 \xc3\x9c" "N\xc3\x8f 42"));
    CHECK(str(y.get(), 1) == b);
    CHECK(str(z.get(), 0) == a + a);
  }
}

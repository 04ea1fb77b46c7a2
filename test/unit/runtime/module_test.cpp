// module_test.cpp - tests for dlc_module_t: descriptor parsing and validation, dlopen of a real shared library.
#include "test_util.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace dlc_test;

namespace {

int32_t nopEntry(void **, void *) { return 0; }

struct Released {
  int count = 0;
};
void releaseOwner(void *owner) { static_cast<Released *>(owner)->count++; }

// Creates a module from `descriptor` and expects failure with `status`,
// a message containing `fragment`, and `owner` left unreleased.
void expectBadDescriptor(const char *descriptor, dlc_status_t status,
                         const std::string &fragment) {
  Released released;
  dlc_module_t *m = reinterpret_cast<dlc_module_t *>(0x1);
  INFO("descriptor: " << descriptor);
  CHECK(dlc_module_create_from_symbols(descriptor, nopEntry, &released,
                                       releaseOwner, &m) == status);
  CHECK(m == nullptr);
  CHECK_THAT(message(), Catch::Contains(fragment));
  CHECK_THAT(message(), Catch::StartsWith("in-process module: "));
  CHECK(released.count == 0);
}

} // namespace

TEST_CASE("descriptor parsing: a valid descriptor", "[runtime][module]") {
  const char *descriptor = "dlc-module 1\n"
                           "input image 1 4 1 3 224 224\n"
                           "\n"
                           "input a%20b%2Fc%2f 7 0\n"
                           "input mask 9 2 0 5\n"
                           "output logits:0 10 2 1 1000\n"
                           "output ids 7 1 5"; // no final newline
  Released released;
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(descriptor, nopEntry, &released,
                                         releaseOwner, &raw) == DLC_OK);
  ModulePtr m(raw);
  REQUIRE(dlc_module_num_inputs(m.get()) == 3);
  REQUIRE(dlc_module_num_outputs(m.get()) == 2);

  dlc_tensor_info_t info;
  REQUIRE(dlc_module_input_info(m.get(), 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "image");
  CHECK(info.dtype == DLC_DTYPE_FLOAT);
  REQUIRE(info.rank == 4);
  CHECK(info.shape[0] == 1);
  CHECK(info.shape[1] == 3);
  CHECK(info.shape[3] == 224);

  REQUIRE(dlc_module_input_info(m.get(), 1, &info) == DLC_OK);
  CHECK(std::string(info.name) == "a b/c/"); // percent-decoded
  CHECK(info.dtype == DLC_DTYPE_INT64);
  CHECK(info.rank == 0);
  CHECK(info.shape != nullptr);

  REQUIRE(dlc_module_input_info(m.get(), 2, &info) == DLC_OK);
  CHECK(info.dtype == DLC_DTYPE_BOOL);
  CHECK(info.shape[0] == 0);

  REQUIRE(dlc_module_output_info(m.get(), 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "logits:0");
  CHECK(info.dtype == DLC_DTYPE_FLOAT16);
  REQUIRE(dlc_module_output_info(m.get(), 1, &info) == DLC_OK);
  CHECK(std::string(info.name) == "ids");
  CHECK(info.shape[0] == 5);

  CHECK(dlc_module_input_info(m.get(), 3, &info) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "input index 3 out of range (module has 3 inputs)");
  CHECK(dlc_module_output_info(m.get(), 2, &info) ==
        DLC_ERROR_INVALID_ARGUMENT);

  size_t index = 99;
  REQUIRE(dlc_module_find_input(m.get(), "a b/c/", &index) == DLC_OK);
  CHECK(index == 1);
  REQUIRE(dlc_module_find_output(m.get(), "ids", &index) == DLC_OK);
  CHECK(index == 1);
  CHECK(dlc_module_find_input(m.get(), "ids", &index) == DLC_ERROR_NOT_FOUND);
  CHECK(message() == "module '<in-process>': no input named 'ids'");

  CHECK(released.count == 0);
  m.reset();
  CHECK(released.count == 1); // the module released its owner exactly once
}

TEST_CASE("descriptor parsing: header and version errors",
          "[runtime][module]") {
  expectBadDescriptor("", DLC_ERROR_BAD_MODULE, "descriptor is empty");
  expectBadDescriptor("\n\n", DLC_ERROR_BAD_MODULE, "descriptor is empty");
  expectBadDescriptor("dlc-module\noutput y 1 0\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 1: expected 'dlc-module <version>', "
                      "got 'dlc-module'");
  expectBadDescriptor("dlc_module 1\noutput y 1 0\n", DLC_ERROR_BAD_MODULE,
                      "expected 'dlc-module <version>', got 'dlc_module 1'");
  expectBadDescriptor("dlc-module 1 extra\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "expected 'dlc-module <version>'");
  expectBadDescriptor("dlc-module x\noutput y 1 0\n", DLC_ERROR_BAD_MODULE,
                      "expected 'dlc-module <version>'");
  expectBadDescriptor("dlc-module 2\noutput y 1 0\n", DLC_ERROR_UNSUPPORTED,
                      "descriptor line 1: ABI version 2 is not supported "
                      "(this runtime implements version 1)");
  expectBadDescriptor("dlc-module 0\noutput y 1 0\n", DLC_ERROR_UNSUPPORTED,
                      "ABI version 0");
  expectBadDescriptor("dlc-module 1\n", DLC_ERROR_BAD_MODULE,
                      "descriptor declares no outputs");
  expectBadDescriptor("dlc-module 1\ninput x 1 0\n", DLC_ERROR_BAD_MODULE,
                      "descriptor declares no outputs");
}

TEST_CASE("descriptor parsing: malformed records", "[runtime][module]") {
  expectBadDescriptor("dlc-module 1\noutput y 1 0\ntensor z 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: expected 'dim', 'input', 'value', 'output', "
                      "'state' or 'error', got 'tensor'");
  // Run-time check messages: codes 1, 2, ... in order, one percent-encoded message each,
  // after every other record.
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nerror 2 m\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: error record has code '2', expected 1");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nerror\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: error record has code '', expected 1");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nerror 1\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: error 1 has no message");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nerror 1 a b\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: error 1 has trailing 'b'");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nerror 1 a%00\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: bad percent escape in name 'a%00'");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nerror 1 m\noutput z 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 4: records out of order (error records come last)");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\ninput x 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: records out of order (inputs, outputs, then states)");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nstate w 1 0\noutput z 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 4: records out of order (inputs, outputs, then states)");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\nstate w 1 0\nstate w 1 1 2\n",
                      DLC_ERROR_BAD_MODULE, "descriptor line 4: duplicate state 'w'");
  expectBadDescriptor("dlc-module 1\noutput\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: output record has no name");
  expectBadDescriptor("dlc-module 1\noutput y\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has no dtype");
  expectBadDescriptor("dlc-module 1\noutput y 1\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has no rank");
  expectBadDescriptor("dlc-module 1\noutput y 14 0\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has unknown dtype '14'");
  expectBadDescriptor("dlc-module 1\noutput y f32 0\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has unknown dtype 'f32'");
  expectBadDescriptor("dlc-module 1\noutput y 1 -1\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has invalid rank '-1'");
  expectBadDescriptor("dlc-module 1\ninput x 1 2 3\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: input 'x' has rank 2 but 1 dims");
  expectBadDescriptor("dlc-module 1\noutput y 1 1 2 3\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has rank 1 but 2 dims");
  expectBadDescriptor("dlc-module 1\noutput y 1 999999999\n",
                      DLC_ERROR_BAD_MODULE,
                      "output 'y' has rank 999999999 but 0 dims");
  expectBadDescriptor("dlc-module 1\noutput y 1 2 4 -1\n",
                      DLC_ERROR_BAD_MODULE,
                      "output 'y' has invalid dim 1 '-1'");
  expectBadDescriptor("dlc-module 1\noutput y 1 1 3x\n", DLC_ERROR_BAD_MODULE,
                      "output 'y' has invalid dim 0 '3x'");
  expectBadDescriptor("dlc-module 1\noutput y 1 1 99999999999999999999\n",
                      DLC_ERROR_BAD_MODULE, "has invalid dim 0");
  expectBadDescriptor("dlc-module 1\noutput y 1 2 4611686018427387904 4\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: output 'y': shape "
                      "[4611686018427387904,4] of f32 is too large");
  expectBadDescriptor("dlc-module 1\ninput x 1 0\ninput x 7 0\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: duplicate input 'x'");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "duplicate output 'y'");
  // `value` records (value-specialized inputs).
  expectBadDescriptor("dlc-module 1\nvalue 00\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: value record does not follow an input");
  expectBadDescriptor("dlc-module 1\ninput a 7 1 1\nvalue 0100\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE,
                      "value of input 'a' has 4 hex digits, expected 16");
  expectBadDescriptor("dlc-module 1\ninput a 3 0\nvalue zz\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "value of input 'a' is not hex");
  expectBadDescriptor("dlc-module 1\ninput a 3 0\nvalue 01\nvalue 01\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "input 'a' has a missing or repeated value");
  expectBadDescriptor("dlc-module 1\ninput a 3 0\nvalue\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "input 'a' has a missing or repeated value");
}

TEST_CASE("descriptor parsing: GPU modules' target record", "[runtime][module][cuda]") {
  // Well-formed, but a GPU module comes only from a library (its PTX is a symbol there).
  expectBadDescriptor("dlc-module 1\ntarget cuda sm_80\noutput y 1 0\n",
                      DLC_ERROR_UNSUPPORTED, "targets cuda; GPU modules are loaded from "
                      "their library");
  expectBadDescriptor("dlc-module 1\ntarget cuda sm_90a\noutput y 1 0\n",
                      DLC_ERROR_UNSUPPORTED, "targets cuda");
  expectBadDescriptor("dlc-module 1\ntarget rocm gfx90a\noutput y 1 0\n",
                      DLC_ERROR_UNSUPPORTED,
                      "descriptor line 2: unknown target (this runtime runs 'target cuda "
                      "<chip>')");
  expectBadDescriptor("dlc-module 1\ntarget cuda\noutput y 1 0\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: target cuda record without an architecture");
  expectBadDescriptor("dlc-module 1\ntarget cuda sm_8x\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "descriptor line 2: bad architecture 'sm_8x'");
  expectBadDescriptor("dlc-module 1\ntarget cuda sm_80 sm_90\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "descriptor line 2: target record has trailing 'sm_90'");
  expectBadDescriptor("dlc-module 1\noutput y 1 0\ntarget cuda sm_80\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: records out of order (one target record, first "
                      "after the header)");
  expectBadDescriptor("dlc-module 1\ntarget cuda sm_80\ntarget cuda sm_80\noutput y 1 0\n",
                      DLC_ERROR_BAD_MODULE, "descriptor line 3: records out of order");
}

TEST_CASE("descriptor parsing: percent-encoding of names",
          "[runtime][module]") {
  expectBadDescriptor("dlc-module 1\noutput y%2 1 0\n", DLC_ERROR_BAD_MODULE,
                      "bad percent escape in name 'y%2'");
  expectBadDescriptor("dlc-module 1\noutput y%zz 1 0\n", DLC_ERROR_BAD_MODULE,
                      "bad percent escape in name 'y%zz'");
  expectBadDescriptor("dlc-module 1\noutput y%00 1 0\n", DLC_ERROR_BAD_MODULE,
                      "bad percent escape");
  expectBadDescriptor("dlc-module 1\noutput y# 1 0\n", DLC_ERROR_BAD_MODULE,
                      "byte 0x23 must be percent-encoded in name 'y#'");
  expectBadDescriptor("dlc-module 1\noutput \xc3\xa9 1 0\n",
                      DLC_ERROR_BAD_MODULE, "byte 0xc3 must be percent");

  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(
              "dlc-module 1\noutput %C3%A9t%C3%A9%25%09x 1 0\n", nopEntry,
              nullptr, nullptr, &raw) == DLC_OK);
  ModulePtr m(raw);
  dlc_tensor_info_t info;
  REQUIRE(dlc_module_output_info(m.get(), 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "\xc3\xa9t\xc3\xa9%\tx");
}

TEST_CASE("create_from_symbols rejects null arguments", "[runtime][module]") {
  dlc_module_t *m = nullptr;
  CHECK(dlc_module_create_from_symbols(nullptr, nopEntry, nullptr, nullptr,
                                       &m) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_module_create_from_symbols("dlc-module 1\noutput y 1 0", nullptr,
                                       nullptr, nullptr,
                                       &m) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dlc_module_create_from_symbols: entry is null");
  CHECK(dlc_module_num_inputs(nullptr) == 0);
  dlc_module_free(nullptr);
}

TEST_CASE("module load: a real shared library", "[runtime][module]") {
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_load(DLC_FAKE_MODEL_PATH, &raw) == DLC_OK);
  ModulePtr m(raw);
  REQUIRE(dlc_module_num_inputs(m.get()) == 2);
  REQUIRE(dlc_module_num_outputs(m.get()) == 2);
  dlc_tensor_info_t info;
  REQUIRE(dlc_module_input_info(m.get(), 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "x:0");
  REQUIRE(dlc_module_output_info(m.get(), 0, &info) == DLC_OK);
  CHECK(std::string(info.name) == "y out");
  REQUIRE(dlc_module_output_info(m.get(), 1, &info) == DLC_OK);
  CHECK(info.dtype == DLC_DTYPE_INT64);
  CHECK(info.rank == 0);
  size_t index = 0;
  CHECK(dlc_module_find_input(m.get(), "nope", &index) == DLC_ERROR_NOT_FOUND);
  CHECK(message() == std::string("module '") + DLC_FAKE_MODEL_PATH +
                         "': no input named 'nope'");

  // Loading twice gives two independent modules.
  REQUIRE(dlc_module_load(DLC_FAKE_MODEL_PATH, &raw) == DLC_OK);
  ModulePtr again(raw);
  m.reset();
  CHECK(dlc_module_num_inputs(again.get()) == 2);
}

TEST_CASE("module load: errors name the path", "[runtime][module]") {
  dlc_module_t *m = reinterpret_cast<dlc_module_t *>(0x1);
  std::string missing = tmpPath("no_such_model.so");
  CHECK(dlc_module_load(missing.c_str(), &m) == DLC_ERROR_NOT_FOUND);
  CHECK(m == nullptr);
  CHECK(message() == "cannot load module '" + missing +
                         "': no such file or directory");

  // A bare name means a file in the current directory, not a library
  // search: "libc.so.6" must not be found through the loader's path.
  CHECK(dlc_module_load("libc.so.6", &m) == DLC_ERROR_NOT_FOUND);

  std::string garbage = tmpPath("garbage_model.so");
  writeFile(garbage, "not an ELF file\n");
  CHECK(dlc_module_load(garbage.c_str(), &m) == DLC_ERROR_BAD_MODULE);
  CHECK_THAT(message(),
             Catch::StartsWith("module '" + garbage + "': not a dlc module"));

  // A library without the seal is refused before dlopen runs any of it.
  CHECK(dlc_module_load(DLC_RUNTIME_LIB_PATH, &m) == DLC_ERROR_BAD_MODULE);
  CHECK(message() == std::string("module '") + DLC_RUNTIME_LIB_PATH +
                         "': not a dlc module (no dlc seal at its end: another "
                         "library, a truncated file, or one written by an older dlc)");

  CHECK(dlc_module_load(nullptr, &m) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_module_load(DLC_FAKE_MODEL_PATH, nullptr) ==
        DLC_ERROR_INVALID_ARGUMENT);
}

namespace {
dlc_status_t loadBytes(const std::string &path, const std::string &bytes) {
  // A new file each time: rewriting a loaded library's file in place would change
  // its mapped pages under the loader (dlclose may keep a library mapped).
  std::remove(path.c_str());
  writeFile(path, bytes);
  dlc_module_t *m = nullptr;
  dlc_status_t st = dlc_module_load(path.c_str(), &m);
  dlc_module_free(m);
  return st;
}
} // namespace

TEST_CASE("module load: the seal is checked before dlopen", "[runtime][module]") {
  std::string good = readFile(DLC_FAKE_MODEL_PATH);
  REQUIRE(good.size() > 64);
  std::string path = tmpPath("sealed_copy.so");
  CHECK(loadBytes(path, good) == DLC_OK);

  // Any byte changed, in the code, the data or the seal's own hash.
  for (size_t at : {size_t(0), size_t(1000), good.size() / 2, good.size() - 40,
                    good.size() - 24}) {
    std::string bad = good;
    bad[at] ^= 0x10;
    CHECK(loadBytes(path, bad) == DLC_ERROR_BAD_MODULE);
    CHECK(message() == "module '" + path +
                           "': checksum mismatch (the file was damaged or edited "
                           "after dlc compile wrote it)");
  }
  // Truncated anywhere: the seal is gone.
  for (size_t keep : {size_t(0), size_t(10), good.size() / 2, good.size() - 1}) {
    CHECK(loadBytes(path, good.substr(0, keep)) == DLC_ERROR_BAD_MODULE);
    CHECK_THAT(message(), Catch::Contains("not a dlc module (no dlc seal"));
  }
  // Bytes added in front: the seal's size no longer matches.
  CHECK(loadBytes(path, "x" + good) == DLC_ERROR_BAD_MODULE);
  CHECK_THAT(message(), Catch::Contains("truncated or extended (its seal says"));
  // Another ABI version.
  std::string other = good;
  dlc_abi_seal_t seal;
  std::memcpy(&seal, other.data() + other.size() - sizeof(seal), sizeof(seal));
  seal.abi_version = DLC_ABI_VERSION + 1;
  std::memcpy(&other[other.size() - sizeof(seal)], &seal, sizeof(seal));
  CHECK(loadBytes(path, other) == DLC_ERROR_UNSUPPORTED);
  CHECK_THAT(message(), Catch::Contains("compiled for ABI version 2"));
}

TEST_CASE("descriptor: 100,000 records parse, duplicates found", "[runtime][module]") {
  // Duplicate names are found by sorting, not by comparing every pair.
  std::string text = "dlc-module 1\n";
  for (int i = 0; i < 100000; ++i)
    text += "input x" + std::to_string(i) + " 1 1 2\n";
  text += "output y 1 0\n";
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(text.c_str(), nopEntry, nullptr,
                                         nullptr, &raw) == DLC_OK);
  CHECK(dlc_module_num_inputs(raw) == 100000);
  dlc_module_free(raw);
  text += "output x5 1 0\noutput x7 1 0\noutput y 1 0\noutput x7 1 0\n";
  CHECK(dlc_module_create_from_symbols(text.c_str(), nopEntry, nullptr, nullptr,
                                       &raw) == DLC_ERROR_BAD_MODULE);
  CHECK(message() == "in-process module: descriptor line 100005: duplicate output 'y'");
}

TEST_CASE("training-step state: records, attach, info", "[runtime][module]") {
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(
              "dlc-module 1\ninput x 1 1 2\noutput loss 1 0\nstate fc.weight 1 2 2 3\n"
              "state fc.bias 1 1 2\n",
              nopEntry, nullptr, nullptr, &raw) == DLC_OK);
  ModulePtr m(raw);
  CHECK(dlc_module_num_states(m.get()) == 2);
  CHECK(dlc_module_num_outputs(m.get()) == 1);
  dlc_tensor_info_t info;
  void *data = nullptr;
  // In process, the buffers come from dlc_module_attach_state.
  CHECK(dlc_module_state_info(m.get(), 0, &info, &data) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(message(), Catch::Contains("needs dlc_module_attach_state"));
  float weight[6] = {0}, bias[2] = {0};
  void *buffers[] = {weight, bias};
  const char model[] = "onnx";
  CHECK(dlc_module_attach_state(m.get(), nullptr, nullptr, 0) == DLC_ERROR_INVALID_ARGUMENT);
  REQUIRE(dlc_module_attach_state(m.get(), buffers, model, 4) == DLC_OK);
  REQUIRE(dlc_module_state_info(m.get(), 1, &info, &data) == DLC_OK);
  CHECK(std::string(info.name) == "fc.bias");
  CHECK(info.rank == 1);
  CHECK(info.shape[0] == 2);
  CHECK(data == bias);
  CHECK(dlc_module_state_info(m.get(), 2, &info, &data) == DLC_ERROR_INVALID_ARGUMENT);
  const void *bytes = nullptr;
  size_t size = 0;
  REQUIRE(dlc_module_embedded_onnx(m.get(), &bytes, &size) == DLC_OK);
  CHECK(bytes == model);
  CHECK(size == 4);
}

TEST_CASE("training-step state: inference modules have none", "[runtime][module]") {
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols("dlc-module 1\noutput y 1 0\n", nopEntry, nullptr,
                                         nullptr, &raw) == DLC_OK);
  ModulePtr m(raw);
  CHECK(dlc_module_num_states(m.get()) == 0);
  CHECK(dlc_module_num_states(nullptr) == 0);
  const void *bytes = nullptr;
  size_t size = 0;
  CHECK(dlc_module_embedded_onnx(m.get(), &bytes, &size) == DLC_ERROR_NOT_FOUND);
  CHECK_THAT(message(), Catch::Contains("carries no ONNX model"));
}

TEST_CASE("symbolic dims: a valid descriptor", "[runtime][module][dims]") {
  const char *descriptor = "dlc-module 1\n"
                           "dim batch 1 64\n"
                           "\n"
                           "dim seq%20len 0 1099511627776\n"
                           "input x 1 3 ?batch 16 ?seq%20len\n"
                           "input mask 9 2 ?batch ?batch\n"
                           "input scale 1 0\n"
                           "output y 1 2 ?batch 10\n"
                           "output n 7 1 4\n"
                           "output z 1 3 ?seq%20len ?batch ?seq%20len\n";
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(descriptor, nopEntry, nullptr, nullptr,
                                         &raw) == DLC_OK);
  ModulePtr m(raw);
  REQUIRE(dlc_module_num_dims(m.get()) == 2);
  dlc_dim_info_t dim;
  REQUIRE(dlc_module_dim_info(m.get(), 0, &dim) == DLC_OK);
  CHECK(std::string(dim.name) == "batch");
  CHECK(dim.min == 1);
  CHECK(dim.max == 64);
  REQUIRE(dlc_module_dim_info(m.get(), 1, &dim) == DLC_OK);
  CHECK(std::string(dim.name) == "seq len"); // percent-decoded
  CHECK(dim.min == 0);
  CHECK(dim.max == DLC_ABI_MAX_DIM);
  CHECK(dlc_module_dim_info(m.get(), 2, &dim) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dim index 2 out of range (module has 2 dims)");
  CHECK(dlc_module_dim_info(m.get(), 0, nullptr) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_module_dim_info(nullptr, 0, &dim) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_module_num_dims(nullptr) == 0);

  dlc_tensor_info_t info;
  REQUIRE(dlc_module_input_info(m.get(), 0, &info) == DLC_OK);
  REQUIRE(info.rank == 3);
  REQUIRE(info.dim_symbols != nullptr);
  CHECK(info.shape[0] == -1);
  CHECK(info.shape[1] == 16);
  CHECK(info.shape[2] == -1);
  CHECK(info.dim_symbols[0] == 0);
  CHECK(info.dim_symbols[1] == -1);
  CHECK(info.dim_symbols[2] == 1);
  REQUIRE(dlc_module_input_info(m.get(), 1, &info) == DLC_OK);
  CHECK(info.dim_symbols[0] == 0);
  CHECK(info.dim_symbols[1] == 0);
  REQUIRE(dlc_module_input_info(m.get(), 2, &info) == DLC_OK);
  CHECK(info.rank == 0);
  CHECK(info.dim_symbols != nullptr); // like shape, even for rank 0
  REQUIRE(dlc_module_output_info(m.get(), 0, &info) == DLC_OK);
  CHECK(info.shape[0] == -1);
  CHECK(info.shape[1] == 10);
  CHECK(info.dim_symbols[0] == 0);
  CHECK(info.dim_symbols[1] == -1);
  REQUIRE(dlc_module_output_info(m.get(), 1, &info) == DLC_OK);
  CHECK(info.shape[0] == 4);
  CHECK(info.dim_symbols[0] == -1);
  REQUIRE(dlc_module_output_info(m.get(), 2, &info) == DLC_OK);
  CHECK(info.dim_symbols[0] == 1);
  CHECK(info.dim_symbols[1] == 0);
  CHECK(info.dim_symbols[2] == 1);
}

TEST_CASE("symbolic dims: static descriptors have none", "[runtime][module][dims]") {
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(
              "dlc-module 1\ninput x 1 2 2 3\noutput y 1 0\nstate w 1 1 5\n", nopEntry,
              nullptr, nullptr, &raw) == DLC_OK);
  ModulePtr m(raw);
  CHECK(dlc_module_num_dims(m.get()) == 0);
  dlc_dim_info_t dim;
  CHECK(dlc_module_dim_info(m.get(), 0, &dim) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dim index 0 out of range (module has 0 dims)");
  dlc_tensor_info_t info;
  REQUIRE(dlc_module_input_info(m.get(), 0, &info) == DLC_OK);
  CHECK(info.shape[0] == 2);
  CHECK(info.shape[1] == 3);
  CHECK(info.dim_symbols[0] == -1);
  CHECK(info.dim_symbols[1] == -1);
  REQUIRE(dlc_module_output_info(m.get(), 0, &info) == DLC_OK);
  CHECK(info.dim_symbols != nullptr);
  float w[5];
  void *buffers[] = {w};
  REQUIRE(dlc_module_attach_state(m.get(), buffers, nullptr, 0) == DLC_OK);
  void *data = nullptr;
  REQUIRE(dlc_module_state_info(m.get(), 0, &info, &data) == DLC_OK);
  CHECK(info.dim_symbols[0] == -1);
}

TEST_CASE("symbolic dims: malformed dim records", "[runtime][module][dims]") {
  const std::string head = "dlc-module 1\n";
  const std::string uses = "input x 1 1 ?b\noutput y 1 0\n";
  expectBadDescriptor((head + "dim\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim record has no name");
  expectBadDescriptor((head + "dim b\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'b' has no min");
  expectBadDescriptor((head + "dim b 1\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'b' has no max");
  expectBadDescriptor((head + "dim b -1 4\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'b' has invalid min '-1' (expected an "
                      "integer in [0, 1099511627776])");
  expectBadDescriptor((head + "dim b 1 1099511627777\n" + uses).c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'b' has invalid max '1099511627777'");
  expectBadDescriptor((head + "dim b 1 4x\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "dim 'b' has invalid max '4x'");
  expectBadDescriptor((head + "dim b 1 99999999999999999999\n" + uses).c_str(),
                      DLC_ERROR_BAD_MODULE, "dim 'b' has invalid max");
  expectBadDescriptor((head + "dim b 5 4\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'b' has min 5 greater than max 4");
  expectBadDescriptor((head + "dim b 1 4 5\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'b' has trailing '5'");
  expectBadDescriptor((head + "dim b%zz 1 4\n" + uses).c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: bad percent escape in name 'b%zz'");
  expectBadDescriptor((head + "dim b 1 4\ndim c 1 2\ndim b 2 3\n" + uses).c_str(),
                      DLC_ERROR_BAD_MODULE, "descriptor line 4: duplicate dim 'b'");
  // Duplicates are found even when no record follows the dims.
  expectBadDescriptor((head + "dim b 1 4\ndim b 1 4\n").c_str(), DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: duplicate dim 'b'");
  // Dims come before every input, output and state record.
  expectBadDescriptor((head + "input x 1 1 3\ndim b 1 4\noutput y 1 0\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: records out of order (dim records come before "
                      "inputs, outputs and states)");
  expectBadDescriptor((head + "dim b 1 4\n" + uses + "dim c 1 4\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 5: records out of order (dim records come before");
  expectBadDescriptor((head + "dim b 1 4\n" + uses + "error 1 m\ndim c 1 4\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 6: records out of order (dim records come before");
  expectBadDescriptor("dim b 1 4\ndlc-module 1\noutput y 1 0\n", DLC_ERROR_BAD_MODULE,
                      "descriptor line 1: expected 'dlc-module <version>', got 'dim b 1 4'");
}

TEST_CASE("symbolic dims: malformed uses", "[runtime][module][dims]") {
  const std::string head = "dlc-module 1\ndim batch 1 8\n";
  expectBadDescriptor((head + "input x 1 2 ?bach 3\noutput y 1 0\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: input 'x' dim 0 '?bach' names no declared dim");
  expectBadDescriptor((head + "input x 1 2 ?batch 3\noutput y 1 2 3 ?\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 4: output 'y' dim 1 '?' names no declared dim");
  expectBadDescriptor((head + "input x 1 1 ?batch\noutput y 1 0\nstate w 1 1 ?batch\n")
                          .c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 5: state 'w' has symbolic dim 0 '?batch' (states "
                      "are static)");
  expectBadDescriptor((head + "input x 1 1 ?ba%zz\noutput y 1 0\n").c_str(),
                      DLC_ERROR_BAD_MODULE, "bad percent escape in name 'ba%zz'");
  expectBadDescriptor((head + "input x 1 1 batch\noutput y 1 0\n").c_str(),
                      DLC_ERROR_BAD_MODULE, "input 'x' has invalid dim 0 'batch'");
  // A dim whose value no input gives.
  expectBadDescriptor((head + "input x 1 1 3\noutput y 1 1 3\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'batch' is used by no input");
  expectBadDescriptor((head + "input x 1 1 3\noutput y 1 1 ?batch\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'batch' is used by no input");
  expectBadDescriptor((head + "dim seq 1 9\ninput x 1 1 ?seq\noutput y 1 1 ?batch\n")
                          .c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 2: dim 'batch' is used by no input");
  // A computed dim (the model sets it) sizes outputs only, and at least one.
  expectBadDescriptor((head + "dim n 0 9 computed\ninput x 1 1 ?n\noutput y 1 1 ?n\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 4: input 'x' dim 0 '?n' names a computed dim (only "
                      "outputs may)");
  expectBadDescriptor(
      (head + "dim n 0 9 computed\ninput x 1 1 ?batch\noutput y 1 1 ?batch\n").c_str(),
      DLC_ERROR_BAD_MODULE, "descriptor line 3: computed dim 'n' is used by no output");
  expectBadDescriptor((head + "dim n 0 9 later\ninput x 1 1 ?batch\noutput y 1 1 ?n\n").c_str(),
                      DLC_ERROR_BAD_MODULE, "dim 'n' has trailing 'later'");
  // No value records on a symbolic input (its size varies).
  expectBadDescriptor((head + "input x 7 1 ?batch\nvalue 00\noutput y 1 0\n").c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 4: input 'x' has symbolic dims: it cannot have a "
                      "value");
  // Static dims must still be addressable, the symbolic ones at max(min, 1).
  expectBadDescriptor((head + "input x 1 2 ?batch 4611686018427387904\noutput y 1 0\n")
                          .c_str(),
                      DLC_ERROR_BAD_MODULE,
                      "descriptor line 3: input 'x' (its symbolic dims at max(min, 1)): "
                      "shape [1,4611686018427387904] of f32 is too large");
}

TEST_CASE("symbolic dims: 100,000 dims and uses parse", "[runtime][module][dims]") {
  // Lookups of "?name" go through the dims sorted by name, not a scan of them all.
  std::string text = "dlc-module 1\n";
  for (int i = 0; i < 100000; ++i)
    text += "dim d" + std::to_string(i) + " 0 " + std::to_string(i) + "\n";
  for (int i = 0; i < 100000; ++i)
    text += "input x" + std::to_string(i) + " 1 1 ?d" + std::to_string(99999 - i) + "\n";
  text += "output y 1 1 ?d99999\n";
  dlc_module_t *raw = nullptr;
  REQUIRE(dlc_module_create_from_symbols(text.c_str(), nopEntry, nullptr, nullptr,
                                         &raw) == DLC_OK);
  ModulePtr m(raw);
  CHECK(dlc_module_num_dims(m.get()) == 100000);
  dlc_tensor_info_t info;
  REQUIRE(dlc_module_input_info(m.get(), 5, &info) == DLC_OK);
  CHECK(info.dim_symbols[0] == 99994);
  dlc_dim_info_t dim;
  REQUIRE(dlc_module_dim_info(m.get(), 99994, &dim) == DLC_OK);
  CHECK(std::string(dim.name) == "d99994");
  CHECK(dim.max == 99994);
}

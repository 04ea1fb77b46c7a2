// tensor_test.cpp - tests for status codes, dtype helpers and dlc_tensor_t create/wrap/accessors.
#include "test_util.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

using namespace dlc_test;

TEST_CASE("status names are distinct and stable", "[runtime][status]") {
  CHECK(std::string(dlc_status_name(DLC_OK)) == "ok");
  CHECK(std::string(dlc_status_name(DLC_ERROR_SHAPE_MISMATCH)) ==
        "shape mismatch");
  CHECK(std::string(dlc_status_name(static_cast<dlc_status_t>(99))) ==
        "unknown status");
  std::vector<std::string> names;
  for (int s = DLC_OK; s <= DLC_ERROR_INTERNAL; ++s)
    names.push_back(dlc_status_name(static_cast<dlc_status_t>(s)));
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = i + 1; j < names.size(); ++j)
      CHECK(names[i] != names[j]);
}

TEST_CASE("status message is per thread", "[runtime][status]") {
  dlc_tensor_t *t = nullptr;
  REQUIRE(dlc_tensor_create(14, 0, nullptr, &t) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "tensor: unknown dtype 14");
  std::string other;
  std::thread([&] {
    other = dlc_status_message(); // nothing failed on this thread yet
    dlc_tensor_t *u = nullptr;
    dlc_tensor_create(DLC_DTYPE_FLOAT, -1, nullptr, &u);
  }).join();
  CHECK(other.empty());
  CHECK(message() == "tensor: unknown dtype 14");
  // Success does not clear it.
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 0, nullptr, &t) == DLC_OK);
  dlc_tensor_free(t);
  CHECK(message() == "tensor: unknown dtype 14");
}

TEST_CASE("dtype sizes and names follow ONNX numbering", "[runtime][dtype]") {
  struct Row {
    dlc_dtype_t dtype;
    size_t size;
    const char *name;
  };
  const Row rows[] = {
      {DLC_DTYPE_FLOAT, 4, "f32"},   {DLC_DTYPE_UINT8, 1, "u8"},
      {DLC_DTYPE_INT8, 1, "i8"},     {DLC_DTYPE_UINT16, 2, "u16"},
      {DLC_DTYPE_INT16, 2, "i16"},   {DLC_DTYPE_INT32, 4, "i32"},
      {DLC_DTYPE_INT64, 8, "i64"},   {DLC_DTYPE_BOOL, 1, "bool"},
      {DLC_DTYPE_FLOAT16, 2, "f16"}, {DLC_DTYPE_DOUBLE, 8, "f64"},
      {DLC_DTYPE_UINT32, 4, "u32"},  {DLC_DTYPE_UINT64, 8, "u64"},
      {DLC_DTYPE_BFLOAT16, 2, "bf16"},   {DLC_DTYPE_STRING, 16, "string"},
      // Low-precision types: one byte per element in memory.
      {DLC_DTYPE_FLOAT8E4M3FN, 1, "f8e4m3fn"}, {DLC_DTYPE_FLOAT8E4M3FNUZ, 1, "f8e4m3fnuz"},
      {DLC_DTYPE_FLOAT8E5M2, 1, "f8e5m2"},     {DLC_DTYPE_FLOAT8E5M2FNUZ, 1, "f8e5m2fnuz"},
      {DLC_DTYPE_UINT4, 1, "u4"},              {DLC_DTYPE_INT4, 1, "i4"},
      {DLC_DTYPE_FLOAT4E2M1, 1, "f4e2m1"},     {DLC_DTYPE_UINT2, 1, "u2"},
      {DLC_DTYPE_FLOAT8E8M0, 1, "f8e8m0"},
      {DLC_DTYPE_INT2, 1, "i2"}};
  for (const Row &r : rows) {
    CHECK(dlc_dtype_size(r.dtype) == r.size);
    CHECK(std::string(dlc_dtype_name(r.dtype)) == r.name);
  }
  CHECK(DLC_DTYPE_FLOAT == 1);
  CHECK(DLC_DTYPE_BOOL == 9);
  CHECK(DLC_DTYPE_BFLOAT16 == 16);
  for (dlc_dtype_t bad : {0, 14, 15, 27, -1}) {
    CHECK(dlc_dtype_size(bad) == 0);
    CHECK(std::string(dlc_dtype_name(bad)) == "unknown");
  }
}

TEST_CASE("created tensors are zeroed, aligned and describe themselves",
          "[runtime][tensor]") {
  const int64_t shape[] = {3, 5, 7};
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_create(DLC_DTYPE_DOUBLE, 3, shape, &raw) == DLC_OK);
  TensorPtr t(raw);
  CHECK(dlc_tensor_dtype(t.get()) == DLC_DTYPE_DOUBLE);
  CHECK(dlc_tensor_rank(t.get()) == 3);
  CHECK(dlc_tensor_shape(t.get())[2] == 7);
  CHECK(dlc_tensor_num_elements(t.get()) == 105);
  CHECK(dlc_tensor_byte_size(t.get()) == 840);
  auto *data = static_cast<unsigned char *>(dlc_tensor_data(t.get()));
  REQUIRE(data != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(data) % 64 == 0);
  for (size_t i = 0; i < 840; ++i)
    REQUIRE(data[i] == 0);

  REQUIRE(dlc_tensor_create(DLC_DTYPE_INT64, 0, nullptr, &raw) == DLC_OK);
  TensorPtr scalar(raw);
  CHECK(dlc_tensor_rank(scalar.get()) == 0);
  CHECK(dlc_tensor_num_elements(scalar.get()) == 1);
  CHECK(dlc_tensor_byte_size(scalar.get()) == 8);

  const int64_t empty_shape[] = {4, 0, INT64_MAX};
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 3, empty_shape, &raw) == DLC_OK);
  TensorPtr empty(raw);
  CHECK(dlc_tensor_num_elements(empty.get()) == 0);
  CHECK(dlc_tensor_byte_size(empty.get()) == 0);
  CHECK(dlc_tensor_data(empty.get()) != nullptr);
}

TEST_CASE("tensor creation rejects bad arguments", "[runtime][tensor]") {
  dlc_tensor_t *t = reinterpret_cast<dlc_tensor_t *>(0x1);
  const int64_t neg[] = {2, -3};
  CHECK(dlc_tensor_create(DLC_DTYPE_FLOAT, 2, neg, &t) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(t == nullptr);
  CHECK(message() == "tensor: dim 1 is negative (-3)");
  CHECK(dlc_tensor_create(DLC_DTYPE_FLOAT, -1, nullptr, &t) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "tensor: negative rank -1");
  CHECK(dlc_tensor_create(DLC_DTYPE_FLOAT, 2, nullptr, &t) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "tensor: shape is null for rank 2");
  const int64_t huge[] = {INT64_MAX / 2, 4};
  CHECK(dlc_tensor_create(DLC_DTYPE_FLOAT, 2, huge, &t) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "tensor: shape [4611686018427387903,4] of f32 is too "
                     "large");
  CHECK(dlc_tensor_create(DLC_DTYPE_FLOAT, 0, nullptr, nullptr) ==
        DLC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("wrapped tensors borrow caller memory", "[runtime][tensor]") {
  float values[6] = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape, values, &raw) == DLC_OK);
  CHECK(dlc_tensor_data(raw) == values);
  CHECK(dlc_tensor_byte_size(raw) == sizeof(values));
  dlc_tensor_free(raw); // must not free `values` (ASan would catch it)
  CHECK(values[5] == 6);

  CHECK(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape, nullptr, &raw) ==
        DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "tensor: data is null for shape [2,3] of f32");
  const int64_t empty[] = {0};
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 1, empty, nullptr, &raw) == DLC_OK);
  dlc_tensor_free(raw);
  dlc_tensor_free(nullptr);
}

TEST_CASE("accessors tolerate null", "[runtime][tensor]") {
  CHECK(dlc_tensor_rank(nullptr) == 0);
  CHECK(dlc_tensor_shape(nullptr) == nullptr);
  CHECK(dlc_tensor_data(nullptr) == nullptr);
  CHECK(dlc_tensor_byte_size(nullptr) == 0);
}

TEST_CASE("string tensors own their elements", "[runtime][tensor][string]") {
  const int64_t shape[] = {3};
  dlc_tensor_t *t = nullptr;
  REQUIRE(dlc_tensor_create(DLC_DTYPE_STRING, 1, shape, &t) == DLC_OK);
  CHECK(dlc_tensor_byte_size(t) == 3 * sizeof(dlc_string_t));
  size_t n = 7;
  CHECK(dlc_tensor_string(t, 0, &n) == nullptr); // new elements are empty
  CHECK(n == 0);
  std::string text = "h\xc3\xa9llo";
  REQUIRE(dlc_tensor_set_string(t, 1, text.data(), text.size()) == DLC_OK);
  text[0] = 'X'; // copied, not borrowed
  const char *s = dlc_tensor_string(t, 1, &n);
  CHECK(std::string(s, n) == "h\xc3\xa9llo");
  REQUIRE(dlc_tensor_set_string(t, 1, "ab", 2) == DLC_OK); // replaces (the old copy freed)
  s = dlc_tensor_string(t, 1, &n);
  CHECK(std::string(s, n) == "ab");
  REQUIRE(dlc_tensor_set_string(t, 2, nullptr, 0) == DLC_OK);
  CHECK(dlc_tensor_set_string(t, 3, "x", 1) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dlc_tensor_set_string: index 3 out of range [0, 3)");
  CHECK(dlc_tensor_set_string(t, 0, nullptr, 2) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(dlc_tensor_string(t, -1, &n) == nullptr);
  dlc_tensor_free(t);
  dlc_tensor_t *f = nullptr;
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 1, shape, &f) == DLC_OK);
  CHECK(dlc_tensor_set_string(f, 0, "x", 1) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "dlc_tensor_set_string: not a string tensor");
  CHECK(dlc_tensor_string(f, 0, &n) == nullptr);
  dlc_tensor_free(f);
}

TEST_CASE("the string functions compare bytes", "[runtime][string]") {
  auto pack = [](const char *s) {
    return (dlc_abi_string_t)(uintptr_t)s | ((dlc_abi_string_t)(uint64_t)strlen(s) << 64);
  };
  CHECK(dlc_rt_string_equal(pack("ab"), pack("ab")) == 1);
  CHECK(dlc_rt_string_equal(pack("ab"), pack("abc")) == 0);
  CHECK(dlc_rt_string_equal(pack(""), 0) == 1);
  CHECK(dlc_rt_string_compare(pack("ab"), pack("abc")) == -1);
  CHECK(dlc_rt_string_compare(pack("b"), pack("abc")) == 1);
  CHECK(dlc_rt_string_compare(pack("abc"), pack("abc")) == 0);
  // Outside a run there is no arena: functions that make strings make none (0).
  CHECK(dlc_rt_string_concat(pack("a"), pack("b")) == 0);
}

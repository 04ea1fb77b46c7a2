// npy_test.cpp - tests for dlc_tensor_load_npy / dlc_tensor_save_npy: round trips, NumPy byte compatibility, errors.
#include <fstream>
#include "test_util.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <vector>

using namespace dlc_test;

namespace {

// Fills a tensor with a dtype-agnostic byte pattern and round-trips it.
void roundTrip(dlc_dtype_t dtype, std::vector<int64_t> shape,
               const std::string &name) {
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_create(dtype, static_cast<int32_t>(shape.size()),
                            shape.data(), &raw) == DLC_OK);
  TensorPtr t(raw);
  auto *bytes = static_cast<unsigned char *>(dlc_tensor_data(t.get()));
  size_t n = dlc_tensor_byte_size(t.get());
  for (size_t i = 0; i < n; ++i)
    bytes[i] = dtype == DLC_DTYPE_BOOL ? (i % 3 == 0)
                                       : static_cast<unsigned char>(i * 7 + 1);
  std::string path = tmpPath(name);
  REQUIRE(dlc_tensor_save_npy(t.get(), path.c_str()) == DLC_OK);
  REQUIRE(dlc_tensor_load_npy(path.c_str(), &raw) == DLC_OK);
  TensorPtr back(raw);
  CHECK(dlc_tensor_dtype(back.get()) == dtype);
  REQUIRE(dlc_tensor_rank(back.get()) == static_cast<int32_t>(shape.size()));
  for (size_t i = 0; i < shape.size(); ++i)
    CHECK(dlc_tensor_shape(back.get())[i] == shape[i]);
  REQUIRE(dlc_tensor_byte_size(back.get()) == n);
  CHECK(std::memcmp(dlc_tensor_data(back.get()), bytes, n) == 0);
  CHECK(reinterpret_cast<uintptr_t>(dlc_tensor_data(back.get())) % 64 == 0);
  // The data must start 64-byte aligned in the file, as NumPy writes it.
  std::string file = readFile(path);
  CHECK((file.size() - n) % 64 == 0);
}

// Loads `bytes` from a file and expects `status` with `fragment` and the
// path in the message.
void expectLoadError(const std::string &name, const std::string &bytes,
                     dlc_status_t status, const std::string &fragment) {
  std::string path = tmpPath(name);
  writeFile(path, bytes);
  dlc_tensor_t *t = reinterpret_cast<dlc_tensor_t *>(0x1);
  INFO("file " << name);
  CHECK(dlc_tensor_load_npy(path.c_str(), &t) == status);
  CHECK(t == nullptr);
  CHECK_THAT(message(), Catch::Contains(path));
  CHECK_THAT(message(), Catch::Contains(fragment));
}

const char kF32Dict[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

} // namespace

TEST_CASE("npy round trip for every dtype and several ranks",
          "[runtime][npy]") {
  const dlc_dtype_t dtypes[] = {
      DLC_DTYPE_FLOAT, DLC_DTYPE_UINT8,   DLC_DTYPE_INT8,   DLC_DTYPE_UINT16,
      DLC_DTYPE_INT16, DLC_DTYPE_INT32,   DLC_DTYPE_INT64,  DLC_DTYPE_BOOL,
      DLC_DTYPE_FLOAT16, DLC_DTYPE_DOUBLE, DLC_DTYPE_UINT32, DLC_DTYPE_UINT64};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {5}, {2, 3}, {2, 3, 4}, {1, 1, 1, 1, 7}, {3, 0}};
  for (dlc_dtype_t dtype : dtypes) {
    for (size_t s = 0; s < shapes.size(); ++s) {
      INFO("dtype " << dlc_dtype_name(dtype) << " shape #" << s);
      roundTrip(dtype, shapes[s],
                std::string("rt_") + dlc_dtype_name(dtype) + "_" +
                    std::to_string(s) + ".npy");
    }
  }
}

TEST_CASE("npy save writes exactly what numpy.save writes", "[runtime][npy]") {
  // Reference bytes are those of NumPy 2.4 np.save for the same arrays.
  const float values[6] = {0, 1, 2, 3, 4, 5};
  const int64_t shape[] = {2, 3};
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_FLOAT, 2, shape,
                          const_cast<float *>(values), &raw) == DLC_OK);
  TensorPtr t(raw);
  std::string path = tmpPath("exact_f32.npy");
  REQUIRE(dlc_tensor_save_npy(t.get(), path.c_str()) == DLC_OK);
  std::string file = readFile(path);
  CHECK(file.size() == 152);
  CHECK(file == npyBytes(kF32Dict, rawBytes(values, 6)));

  int64_t scalar = 42;
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_INT64, 0, nullptr, &scalar, &raw) ==
          DLC_OK);
  TensorPtr s(raw);
  path = tmpPath("exact_i64_scalar.npy");
  REQUIRE(dlc_tensor_save_npy(s.get(), path.c_str()) == DLC_OK);
  CHECK(readFile(path) ==
        npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                 rawBytes(&scalar, 1)));

  const bool flags[4] = {true, false, true, true};
  const int64_t four[] = {4};
  REQUIRE(dlc_tensor_wrap(DLC_DTYPE_BOOL, 1, four, const_cast<bool *>(flags),
                          &raw) == DLC_OK);
  TensorPtr b(raw);
  path = tmpPath("exact_bool.npy");
  REQUIRE(dlc_tensor_save_npy(b.get(), path.c_str()) == DLC_OK);
  CHECK(readFile(path) ==
        npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                 rawBytes(flags, 4)));
}

TEST_CASE("npy save pads the header like numpy", "[runtime][npy]") {
  // np.save(np.zeros((1,) * 40, np.float32)) writes a 246-byte header: the
  // dict, 20 spare spaces for the first dim to grow, padding to 64 bytes.
  std::vector<int64_t> shape(40, 1);
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 40, shape.data(), &raw) ==
          DLC_OK);
  TensorPtr t(raw);
  std::string path = tmpPath("rank40.npy");
  REQUIRE(dlc_tensor_save_npy(t.get(), path.c_str()) == DLC_OK);
  std::string file = readFile(path);
  CHECK(file.size() == 256 + 4);
  CHECK(static_cast<unsigned char>(file[8]) == 246);
  CHECK(file[9] == 0);
  CHECK(file[255] == '\n');
}

TEST_CASE("npy load accepts the header variants numpy and others write",
          "[runtime][npy]") {
  const float values[6] = {1.5f, -2, 3, 4, 5, 6.25f};
  const std::string data = rawBytes(values, 6);
  struct Variant {
    const char *name;
    std::string bytes;
  } variants[] = {
      {"v1.npy", npyBytes(kF32Dict, data, 1)},
      {"v2.npy", npyBytes(kF32Dict, data, 2)},
      {"v3.npy", npyBytes(kF32Dict, data, 3)},
      {"reordered.npy",
       npyBytes("{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<f4\"}",
                data)},
      {"py2_longs.npy",
       npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L)}",
                data)},
      {"native_order.npy",
       npyBytes("{'descr': '=f4', 'fortran_order': False, 'shape': (2, 3), }",
                data)},
  };
  for (const Variant &v : variants) {
    INFO(v.name);
    std::string path = tmpPath(std::string("variant_") + v.name);
    writeFile(path, v.bytes);
    dlc_tensor_t *raw = nullptr;
    REQUIRE(dlc_tensor_load_npy(path.c_str(), &raw) == DLC_OK);
    TensorPtr t(raw);
    CHECK(dlc_tensor_dtype(t.get()) == DLC_DTYPE_FLOAT);
    CHECK(dlc_tensor_rank(t.get()) == 2);
    CHECK(std::memcmp(dlc_tensor_data(t.get()), values, sizeof(values)) == 0);
  }
}

TEST_CASE("npy load reports a missing file as not found", "[runtime][npy]") {
  std::string path = tmpPath("does_not_exist.npy");
  std::remove(path.c_str());
  dlc_tensor_t *t = nullptr;
  CHECK(dlc_tensor_load_npy(path.c_str(), &t) == DLC_ERROR_NOT_FOUND);
  CHECK(message() == "cannot open '" + path + "': no such file or directory");
  CHECK(dlc_tensor_load_npy(DLC_TEST_TMP_DIR, &t) == DLC_ERROR_IO);
  CHECK_THAT(message(), Catch::Contains("is not a regular file"));
}

TEST_CASE("npy load reports truncated files with expected sizes",
          "[runtime][npy]") {
  const float values[6] = {};
  std::string full = npyBytes(kF32Dict, rawBytes(values, 6));
  expectLoadError("trunc_data.npy", full.substr(0, full.size() - 12),
                  DLC_ERROR_IO,
                  "truncated data: expected 24 bytes for shape [2,3] of f32, "
                  "got 12");
  expectLoadError("trunc_header.npy", full.substr(0, 40), DLC_ERROR_IO,
                  "truncated .npy header: expected 128 bytes, file has 40");
  expectLoadError("trunc_preamble.npy", full.substr(0, 8), DLC_ERROR_IO,
                  "truncated .npy preamble");
  expectLoadError("trunc_magic.npy", full.substr(0, 3), DLC_ERROR_IO,
                  "truncated .npy preamble");
  expectLoadError("trailing.npy", full + "xyz", DLC_ERROR_INVALID_ARGUMENT,
                  "3 unexpected bytes after the data");
}

TEST_CASE("npy load rejects garbage and malformed headers", "[runtime][npy]") {
  expectLoadError("garbage.npy", "this is not a numpy file at all\n",
                  DLC_ERROR_INVALID_ARGUMENT, "is not a .npy file");
  expectLoadError("empty.npy", "", DLC_ERROR_INVALID_ARGUMENT,
                  "is not a .npy file");
  const std::string four(24, '\0');
  expectLoadError("bad_dict.npy", npyBytes("[1, 2, 3]", four),
                  DLC_ERROR_INVALID_ARGUMENT, "malformed .npy header");
  expectLoadError("bad_key.npy",
                  npyBytes("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2, 3), 'extra': 1}",
                           four),
                  DLC_ERROR_INVALID_ARGUMENT, "unexpected key 'extra'");
  expectLoadError("missing_key.npy",
                  npyBytes("{'descr': '<f4', 'shape': (6,)}", four),
                  DLC_ERROR_INVALID_ARGUMENT, "missing key 'fortran_order'");
  expectLoadError("neg_dim.npy",
                  npyBytes("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (-6,)}",
                           four),
                  DLC_ERROR_INVALID_ARGUMENT, "expected a non-negative dim");
  expectLoadError("huge_dim.npy",
                  npyBytes("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (99999999999999999999,)}",
                           four),
                  DLC_ERROR_INVALID_ARGUMENT, "dim too large");
  expectLoadError("huge_shape.npy",
                  npyBytes("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (1000000000000000000,)}",
                           four),
                  DLC_ERROR_IO, "truncated data: expected 4000000000000000000");
  std::string wild = npyBytes(kF32Dict, four);
  wild[8] = '\xff';
  wild[9] = '\xff'; // header length 65535 in a 152-byte file
  expectLoadError("wild_len.npy", wild, DLC_ERROR_IO, "truncated .npy header");
}

TEST_CASE("npy load rejects valid but unsupported files", "[runtime][npy]") {
  const std::string data(24, '\0');
  expectLoadError("fortran.npy",
                  npyBytes("{'descr': '<f4', 'fortran_order': True, "
                           "'shape': (2, 3), }",
                           data),
                  DLC_ERROR_UNSUPPORTED, "fortran_order arrays are not");
  expectLoadError("big_endian.npy",
                  npyBytes("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (2, 3), }",
                           data),
                  DLC_ERROR_UNSUPPORTED, "big-endian dtype '>f4'");
  expectLoadError("complex.npy",
                  npyBytes("{'descr': '<c8', 'fortran_order': False, "
                           "'shape': (3,), }",
                           data),
                  DLC_ERROR_UNSUPPORTED, "unsupported dtype '<c8'");
  expectLoadError("unicode_be.npy",
                  npyBytes("{'descr': '>U3', 'fortran_order': False, "
                           "'shape': (2,), }",
                           data),
                  DLC_ERROR_UNSUPPORTED, "unsupported dtype '>U3'");
  // A UTF-32 code unit that is no character (a surrogate).
  std::string surrogate(24, '\0');
  surrogate[0] = '\x00';
  surrogate[1] = '\xd8';
  expectLoadError("surrogate.npy",
                  npyBytes("{'descr': '<U3', 'fortran_order': False, "
                           "'shape': (2,), }",
                           surrogate),
                  DLC_ERROR_INVALID_ARGUMENT, "element 0 holds U+D800");
  expectLoadError("structured.npy",
                  npyBytes("{'descr': [('a', '<f4')], 'fortran_order': "
                           "False, 'shape': (6,), }",
                           data),
                  DLC_ERROR_UNSUPPORTED, "structured dtypes");
  std::string v4 = npyBytes(kF32Dict, data, 2);
  v4[6] = 4;
  expectLoadError("v4.npy", v4, DLC_ERROR_UNSUPPORTED,
                  "unsupported .npy format version 4.0");
}

TEST_CASE("npy load never crashes on truncated or corrupted bytes",
          "[runtime][npy]") {
  const float values[6] = {1, 2, 3, 4, 5, 6};
  const std::string good = npyBytes(kF32Dict, rawBytes(values, 6));
  std::string path = tmpPath("fuzz.npy");
  for (size_t len = 0; len < good.size(); ++len) {
    writeFile(path, good.substr(0, len));
    dlc_tensor_t *t = nullptr;
    INFO("prefix of " << len << " bytes");
    CHECK(dlc_tensor_load_npy(path.c_str(), &t) != DLC_OK);
    CHECK(t == nullptr);
    CHECK_THAT(message(), Catch::Contains(path));
  }
  uint32_t state = 12345; // deterministic xorshift
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = good;
    for (int k = 0; k < 3; ++k) {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      bytes[state % 128] = static_cast<char>(state >> 24);
    }
    writeFile(path, bytes);
    dlc_tensor_t *t = nullptr;
    dlc_status_t st = dlc_tensor_load_npy(path.c_str(), &t);
    if (st == DLC_OK)
      dlc_tensor_free(t);
    else
      CHECK(t == nullptr);
  }
}

TEST_CASE("npy save replaces only regular files, atomically", "[runtime][npy]") {
  dlc_tensor_t *raw = nullptr;
  const int64_t shape[] = {3};
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 1, shape, &raw) == DLC_OK);
  TensorPtr t(raw);
  std::string dir = tmpPath("atomic_save");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // An existing regular file is replaced; nothing else is left in the directory.
  std::string path = dir + "/x.npy";
  writeFile(path, "old");
  REQUIRE(dlc_tensor_save_npy(t.get(), path.c_str()) == DLC_OK);
  dlc_tensor_t *back = nullptr;
  REQUIRE(dlc_tensor_load_npy(path.c_str(), &back) == DLC_OK);
  CHECK(dlc_tensor_shape(back)[0] == 3);
  dlc_tensor_free(back);
  CHECK(std::distance(std::filesystem::directory_iterator(dir),
                      std::filesystem::directory_iterator()) == 1);
  // A symlink planted at the path is refused and its target kept.
  std::string target = dir + "/target", link = dir + "/link.npy";
  writeFile(target, "keep");
  std::filesystem::create_symlink(target, link);
  CHECK(dlc_tensor_save_npy(t.get(), link.c_str()) == DLC_ERROR_IO);
  CHECK(message() == "cannot write '" + link +
                         "': it is a symbolic link (only a regular file is replaced)");
  CHECK(readFile(target) == "keep");
  // So is a FIFO (it stays one); and no temporary file is left behind.
  std::string fifo = dir + "/fifo.npy";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(dlc_tensor_save_npy(t.get(), fifo.c_str()) == DLC_ERROR_IO);
  CHECK(message() == "cannot write '" + fifo + "': it exists and is not a regular file");
  CHECK(std::filesystem::is_fifo(fifo));
  CHECK(std::distance(std::filesystem::directory_iterator(dir),
                      std::filesystem::directory_iterator()) == 4);
  // Reading a FIFO does not block (no writer): it is refused.
  dlc_tensor_t *none = nullptr;
  CHECK(dlc_tensor_load_npy(fifo.c_str(), &none) == DLC_ERROR_IO);
  CHECK_THAT(message(), Catch::Contains("is not a regular file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("npy save reports unwritable paths and bf16", "[runtime][npy]") {
  dlc_tensor_t *raw = nullptr;
  const int64_t shape[] = {2};
  REQUIRE(dlc_tensor_create(DLC_DTYPE_FLOAT, 1, shape, &raw) == DLC_OK);
  TensorPtr t(raw);
  std::string path = tmpPath("no_such_dir/x.npy");
  CHECK(dlc_tensor_save_npy(t.get(), path.c_str()) == DLC_ERROR_IO);
  CHECK(message() == "cannot write '" + path + "': no such file or directory");

  REQUIRE(dlc_tensor_create(DLC_DTYPE_BFLOAT16, 1, shape, &raw) == DLC_OK);
  TensorPtr bf(raw);
  path = tmpPath("bf16.npy");
  CHECK(dlc_tensor_save_npy(bf.get(), path.c_str()) == DLC_ERROR_UNSUPPORTED);
  CHECK(message() == "cannot save '" + path +
                         "': dtype bf16 has no .npy equivalent");
  CHECK(dlc_tensor_save_npy(nullptr, path.c_str()) ==
        DLC_ERROR_INVALID_ARGUMENT);
}

TEST_CASE("npy strings load as UTF-8 and save as NumPy's str", "[runtime][npy][string]") {
  // np.array(["ab", "\u00e9"]) as NumPy writes it ('<U2': UTF-32, NUL padded).
  std::string utf32;
  for (uint32_t c : {uint32_t('a'), uint32_t('b'), 0xE9u, 0u})
    for (int k = 0; k < 4; ++k)
      utf32 += char((c >> (8 * k)) & 0xFF);
  const std::string dict = "{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }";
  std::string path = tmpPath("strings.npy");
  {
    std::ofstream(path, std::ios::binary) << npyBytes(dict.c_str(), utf32);
  }
  dlc_tensor_t *raw = nullptr;
  REQUIRE(dlc_tensor_load_npy(path.c_str(), &raw) == DLC_OK);
  TensorPtr t(raw);
  CHECK(dlc_tensor_dtype(t.get()) == DLC_DTYPE_STRING);
  size_t n;
  const char *s0 = dlc_tensor_string(t.get(), 0, &n);
  CHECK(std::string(s0, n) == "ab");
  const char *s1 = dlc_tensor_string(t.get(), 1, &n);
  CHECK(std::string(s1, n) == "\xc3\xa9");
  // Saved back: the same bytes.
  std::string out = tmpPath("strings_out.npy");
  REQUIRE(dlc_tensor_save_npy(t.get(), out.c_str()) == DLC_OK);
  CHECK(readFile(out) == npyBytes(dict.c_str(), utf32));
  // Bytes ('|S3') load too; text that is not UTF-8 cannot be saved as str.
  {
    std::ofstream(path, std::ios::binary)
        << npyBytes("{'descr': '|S3', 'fortran_order': False, 'shape': (1,), }",
                    std::string("\xff\0\0", 3));
  }
  REQUIRE(dlc_tensor_load_npy(path.c_str(), &raw) == DLC_OK);
  TensorPtr b(raw);
  CHECK(std::string(dlc_tensor_string(b.get(), 0, &n), n) == "\xff");
  CHECK(dlc_tensor_save_npy(b.get(), out.c_str()) == DLC_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(message(), Catch::Contains("element 0 is not UTF-8 text"));
}

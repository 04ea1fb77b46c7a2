// Tests of the allocator compiled models use for intermediates (runtime/dlc_alloc.c).
#include <catch2/catch.hpp>

#include <cstdint>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

extern "C" {
void *_mlir_memref_to_llvm_alloc(size_t size);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
void _mlir_memref_to_llvm_free(void *p);
}

TEST_CASE("model allocations are aligned and usable") {
  for (size_t size : {1u, 64u, 1000u, 1u << 20}) {
    void *p = _mlir_memref_to_llvm_alloc(size);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    std::memset(p, 0xab, size);
    _mlir_memref_to_llvm_free(p);
  }
  void *q = _mlir_memref_to_llvm_aligned_alloc(256, 3000);
  REQUIRE(q != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(q) % 256 == 0);
  _mlir_memref_to_llvm_free(q);
  _mlir_memref_to_llvm_free(nullptr); // a no-op
}

TEST_CASE("a freed block is reused for the next request of the same size") {
  const size_t size = 123457;
  void *a = _mlir_memref_to_llvm_alloc(size);
  _mlir_memref_to_llvm_free(a);
  void *b = _mlir_memref_to_llvm_alloc(size);
  CHECK(b == a);
  // A different size never gets the cached block.
  void *c = _mlir_memref_to_llvm_alloc(size + 1);
  CHECK(c != b);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
}

TEST_CASE("many live blocks beyond the cache capacity are freed cleanly") {
  std::vector<void *> blocks;
  for (int i = 0; i < 600; ++i)
    blocks.push_back(_mlir_memref_to_llvm_alloc(4096 + i));
  for (void *p : blocks)
    _mlir_memref_to_llvm_free(p);
  void *again = _mlir_memref_to_llvm_alloc(4096);
  CHECK(again != nullptr);
  _mlir_memref_to_llvm_free(again);
}

TEST_CASE("threads reuse their own small blocks and hand blocks across threads safely") {
  // Each thread allocates and frees small buffers concurrently (a parallel loop's
  // per-piece row buffers): every block is usable, a thread gets its own freed block
  // back, and blocks freed by one thread may be allocated by another.
  const size_t size = 64 * 1024;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  std::vector<void *> handoff(4, nullptr);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        auto *p = static_cast<unsigned char *>(_mlir_memref_to_llvm_alloc(size));
        if (!p || reinterpret_cast<uintptr_t>(p) % 64 != 0) {
          ++failures;
          return;
        }
        std::memset(p, t, size);
        if (p[size - 1] != t)
          ++failures;
        _mlir_memref_to_llvm_free(p);
        void *again = _mlir_memref_to_llvm_alloc(size);
        if (again != p) // the thread's own cache returns the block it just freed
          ++failures;
        _mlir_memref_to_llvm_free(again);
      }
      handoff[t] = _mlir_memref_to_llvm_alloc(size + 64);
    });
  for (auto &th : threads)
    th.join();
  CHECK(failures == 0);
  for (void *p : handoff) // freed on another thread than the one that allocated it
    _mlir_memref_to_llvm_free(p);
}

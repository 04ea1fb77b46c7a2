// parallel_for_test.cpp - tests for dlc_runtime_parallel_for: chunking, edge sizes, nesting, concurrency.
#include "test_util.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

using namespace dlc_test;

namespace {

int32_t nopEntry(void **, void *) { return 0; }

struct Chunk {
  int64_t begin, end;
  std::thread::id thread;
};

// Records every call and sums the indices it covers.
struct Recorder {
  std::mutex mutex;
  std::vector<Chunk> chunks;
  std::atomic<int64_t> sum{0};
};

void recordBody(void *closure, int64_t begin, int64_t end) {
  auto *r = static_cast<Recorder *>(closure);
  int64_t s = 0;
  for (int64_t i = begin; i < end; ++i)
    s += i;
  r->sum += s;
  std::lock_guard<std::mutex> lock(r->mutex);
  r->chunks.push_back({begin, end, std::this_thread::get_id()});
}

struct Fixture {
  ModulePtr module;
  Fixture() {
    dlc_module_t *raw = nullptr;
    REQUIRE(dlc_module_create_from_symbols("dlc-module 1\noutput y 1 0\n",
                                           nopEntry, nullptr, nullptr,
                                           &raw) == DLC_OK);
    module.reset(raw);
  }
  SessionPtr session(int32_t threads) const {
    dlc_session_t *raw = nullptr;
    REQUIRE(dlc_session_create(module.get(), threads, &raw) == DLC_OK);
    return SessionPtr(raw);
  }
};

// Checks the recorded chunks tile [0, n) in `expected` near-equal pieces.
void checkTiling(Recorder &r, int64_t n, size_t expected) {
  std::sort(r.chunks.begin(), r.chunks.end(),
            [](const Chunk &a, const Chunk &b) { return a.begin < b.begin; });
  REQUIRE(r.chunks.size() == expected);
  int64_t next = 0, smallest = n, largest = 0;
  for (const Chunk &c : r.chunks) {
    CHECK(c.begin == next);
    CHECK(c.end > c.begin);
    next = c.end;
    smallest = std::min(smallest, c.end - c.begin);
    largest = std::max(largest, c.end - c.begin);
  }
  CHECK(next == n);
  CHECK(largest - smallest <= 1);
  CHECK(r.sum.load() == n * (n - 1) / 2);
}

} // namespace

TEST_CASE("parallel_for tiles 0..n over the session threads",
          "[runtime][parallel]") {
  Fixture f;
  for (int32_t threads : {1, 2, 4}) {
    SessionPtr s = f.session(threads);
    REQUIRE(dlc_session_num_threads(s.get()) == threads);
    for (int64_t n : {1, 2, 3, 4, 5, 7, 100, 1000003}) {
      INFO(threads << " threads, n = " << n);
      Recorder r;
      dlc_runtime_parallel_for(s.get(), n, recordBody, &r);
      // One call with one thread; else a few pieces per thread, which the
      // threads claim as they come (the caller always takes part).
      size_t expected = threads == 1 ? 1 : static_cast<size_t>(std::min<int64_t>(4 * threads, n));
      checkTiling(r, n, expected);
      std::vector<std::thread::id> ids;
      for (const Chunk &c : r.chunks)
        ids.push_back(c.thread);
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      CHECK(ids.size() <= static_cast<size_t>(threads));
      if (n > 1 && threads > 1)
        CHECK(std::find(ids.begin(), ids.end(), std::this_thread::get_id()) != ids.end());
    }
  }
}

TEST_CASE("parallel_for with n <= 0 calls nothing", "[runtime][parallel]") {
  Fixture f;
  SessionPtr s = f.session(4);
  for (int64_t n : {0, -5}) {
    Recorder r;
    dlc_runtime_parallel_for(s.get(), n, recordBody, &r);
    dlc_runtime_parallel_for(nullptr, n, recordBody, &r);
    CHECK(r.chunks.empty());
  }
}

TEST_CASE("parallel_for with a null context runs inline",
          "[runtime][parallel]") {
  Recorder r;
  dlc_runtime_parallel_for(nullptr, 1000, recordBody, &r);
  REQUIRE(r.chunks.size() == 1);
  CHECK(r.chunks[0].begin == 0);
  CHECK(r.chunks[0].end == 1000);
  CHECK(r.chunks[0].thread == std::this_thread::get_id());
}

namespace {
struct Nested {
  void *ctx;
  Recorder inner;
  std::atomic<int> outerCalls{0};
};
void outerBody(void *closure, int64_t begin, int64_t end) {
  auto *n = static_cast<Nested *>(closure);
  n->outerCalls++;
  for (int64_t i = begin; i < end; ++i) {
    Recorder local;
    dlc_runtime_parallel_for(n->ctx, 50, recordBody, &local);
    // Nested: exactly one inline call on this very thread.
    bool inline_ok = local.chunks.size() == 1 && local.chunks[0].begin == 0 &&
                     local.chunks[0].end == 50 &&
                     local.chunks[0].thread == std::this_thread::get_id();
    if (inline_ok)
      n->inner.sum += local.sum.load();
  }
}
} // namespace

TEST_CASE("nested parallel_for runs inline on the calling worker",
          "[runtime][parallel]") {
  Fixture f;
  for (int32_t threads : {1, 2, 4}) {
    SessionPtr s = f.session(threads);
    Nested n;
    n.ctx = s.get();
    dlc_runtime_parallel_for(s.get(), 8, outerBody, &n);
    CHECK(n.outerCalls.load() == (threads == 1 ? 1 : 8));
    CHECK(n.inner.sum.load() == 8 * (50 * 49 / 2));
    // A different session's loop nested inside also runs inline.
    SessionPtr other = f.session(2);
    Nested cross;
    cross.ctx = other.get();
    dlc_runtime_parallel_for(s.get(), 4, outerBody, &cross);
    CHECK(cross.inner.sum.load() == 4 * (50 * 49 / 2));
    // The pool is usable again afterwards.
    Recorder r;
    dlc_runtime_parallel_for(s.get(), 10, recordBody, &r);
    checkTiling(r, 10, static_cast<size_t>(threads == 1 ? 1 : std::min(4 * threads, 10)));
  }
}

TEST_CASE("parallel_for survives many back-to-back loops",
          "[runtime][parallel]") {
  Fixture f;
  SessionPtr s = f.session(4);
  std::atomic<int64_t> total{0};
  auto body = [](void *closure, int64_t begin, int64_t end) {
    *static_cast<std::atomic<int64_t> *>(closure) += end - begin;
  };
  const int loops = 3000;
  for (int i = 0; i < loops; ++i)
    dlc_runtime_parallel_for(s.get(), 1 + i % 9, body, &total);
  int64_t expected = 0;
  for (int i = 0; i < loops; ++i)
    expected += 1 + i % 9;
  CHECK(total.load() == expected);
}

TEST_CASE("parallel_for from two threads on one session stays correct",
          "[runtime][parallel]") {
  // Not how sessions are meant to be used, but it must not deadlock or
  // lose work: the second caller runs inline while the pool is busy.
  Fixture f;
  SessionPtr s = f.session(3);
  std::atomic<int64_t> sums[2];
  sums[0] = 0;
  sums[1] = 0;
  auto body = [](void *closure, int64_t begin, int64_t end) {
    int64_t local = 0;
    for (int64_t i = begin; i < end; ++i)
      local += i;
    *static_cast<std::atomic<int64_t> *>(closure) += local;
  };
  auto worker = [&](int k) {
    for (int i = 0; i < 300; ++i)
      dlc_runtime_parallel_for(s.get(), 1000, body, &sums[k]);
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  CHECK(sums[0].load() == 300LL * (1000 * 999 / 2));
  CHECK(sums[1].load() == 300LL * (1000 * 999 / 2));
}

#include "sim/job_pool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace knobsim {
namespace {

TEST_CASE("JobPool: every job runs once and writes its own slot, at any thread and job count") {
  for (int threads : {1, 2, 3, 8}) {
    for (int count : {0, 1, 2, 7, 40}) {
      CAPTURE(threads);
      CAPTURE(count);
      JobPool pool(threads);
      CHECK(pool.threads() == threads);
      std::vector<int> out(count, -1);
      std::vector<std::atomic<int>> runs(count);
      int after = 0;
      const std::vector<bool> ran = pool.Run(
          count, 0,
          [&](int j) {
            out[j] = j * j;
            ++runs[j];
          },
          [&](int) {
            ++after;  // the submitting thread only: no lock needed
            return false;
          });
      CHECK(after == count);
      for (int j = 0; j < count; ++j) {
        CHECK(out[j] == j * j);
        CHECK(runs[j] == 1);
        CHECK(ran[j]);
      }
      CHECK(pool.BusySeconds().size() == static_cast<size_t>(threads));
    }
  }
}

TEST_CASE("JobPool: every batch's first jobs before any batch's later ones, then by rank") {
  JobPool pool(1);
  std::mutex mu;
  std::vector<std::pair<char, int>> order;
  auto record = [&](char batch, int j) {
    std::lock_guard<std::mutex> lock(mu);
    order.emplace_back(batch, j);
  };
  std::thread b;
  pool.Run(3, /*rank=*/1, [&](int j) {
    if (j == 0) {
      // The one worker is busy here: queue batch b (rank 0) beside a's two waiting jobs.
      b = std::thread([&] { pool.Run(3, 0, [&](int k) { record('b', k); }); });
      while (pool.Queued() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    record('a', j);
  });
  b.join();
  const std::vector<std::pair<char, int>> want = {{'a', 0}, {'b', 0}, {'b', 1},
                                                  {'a', 1}, {'b', 2}, {'a', 2}};
  CHECK(order == want);
}

TEST_CASE("JobPool: after_each saying true cancels the jobs not yet started") {
  JobPool pool(1);
  std::vector<int> started;
  std::atomic<bool> decided{false};
  const std::vector<bool> ran = pool.Run(
      5, 0,
      [&](int j) {
        started.push_back(j);
        // The worker may take job 1 before the submitter has read job 0: hold it until then,
        // so that jobs 2.. cannot have started when the batch is cancelled.
        while (j > 0 && !decided) std::this_thread::yield();
      },
      [&](int) {
        decided = true;
        return true;
      });
  REQUIRE(!started.empty());
  CHECK(started.front() == 0);
  CHECK(started.size() <= 2);  // job 1 only if it was already running
  for (int j = 0; j < 5; ++j) CHECK(ran[j] == (j < static_cast<int>(started.size())));
  // The pool goes on serving later batches.
  int n = 0;
  pool.Run(3, 0, [&](int) { ++n; });
  CHECK(n == 3);
}

TEST_CASE("JobPool: the first failure by index is rethrown once every job has run") {
  for (int threads : {1, 2, 4}) {
    CAPTURE(threads);
    JobPool pool(threads);
    std::atomic<int> runs{0};
    int after = 0;
    try {
      pool.Run(
          8, 0,
          [&](int j) {
            ++runs;
            if (j == 5) throw std::runtime_error("five");
            if (j == 2) throw std::runtime_error("two");
          },
          [&](int) {
            ++after;
            return false;
          });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "two");
    }
    CHECK(runs == 8);
    CHECK(after == 6);  // not asked about a job that failed
  }
}

}  // namespace
}  // namespace knobsim

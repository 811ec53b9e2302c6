// JobPool: a fixed set of worker threads fed from one shared queue, for sweeps whose jobs come
// from several submitting threads at once — the planner's cells, each a sequential search that
// simulates one size at a time (sim/plan/plan.h). A cell cannot know its next size before the
// last one is assessed, so a pool per cell (or a barrier per size) leaves cores idle whenever
// the replications of one size do not divide by the threads; one queue shared by every cell
// keeps each worker busy while any cell has a replication to run.
//
// Order: a queued job is taken by (job index in its batch, the batch's rank, submission order).
// A batch's later jobs are the ones sequential stopping cancels (RunSetOptions::stop), so every
// batch's first jobs run before any batch's later ones; among equals the lower rank (the
// caller's longest-first order) goes first. The order decides only the schedule: each job
// writes its own result, and `after_each` runs on the submitting thread, one call at a time.
//
// Contract: Run blocks the calling thread (which must not be one of the pool's workers) until
// every job it started has finished, so nothing a job references outlives the call. A job's
// exception is kept at its index and the first by index is rethrown once all have finished.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace knobsim {

// The calling thread's CPU seconds so far (CLOCK_THREAD_CPUTIME_ID). The sweeps measure a
// worker's busy time with it rather than with wall time: on a machine shared with other work,
// wall time inside a job also counts the time the thread waited for a core, which hides an
// uneven split.
double ThreadCpuSeconds();

class JobPool {
 public:
  // Starts `threads` workers (at least 1).
  explicit JobPool(int threads);
  ~JobPool();
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()); }

  // Queues job(0) .. job(count - 1) at `rank` and waits for them. After each job finishes, the
  // calling thread calls after_each(job) (may be empty); true cancels the jobs not yet started
  // (those running finish). Returns, per job, whether it ran.
  std::vector<bool> Run(int count, int64_t rank, const std::function<void(int job)>& job,
                        const std::function<bool(int job)>& after_each = {});

  // Jobs queued and not yet started, of every batch.
  int Queued() const;

  // Busy seconds per worker since the pool started (ThreadCpuSeconds spent inside jobs): the
  // load balance of a sweep is max(busy) / (sum(busy) / threads).
  std::vector<double> BusySeconds() const;

 private:
  struct Batch;
  struct Entry {
    int index;
    int64_t rank;
    uint64_t seq;
    Batch* batch;
    bool operator<(const Entry& o) const;
  };

  void Work(int worker);

  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::set<Entry> queue_;
  uint64_t next_seq_ = 0;
  bool stopping_ = false;
  std::vector<double> busy_s_;
  std::vector<std::thread> workers_;
};

}  // namespace knobsim

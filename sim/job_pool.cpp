#include "sim/job_pool.h"

#include <algorithm>
#include <ctime>
#include <exception>
#include <tuple>
#include <utility>

namespace knobsim {

// One Run call: lives on the submitting thread's stack, which waits until nothing refers to it.
struct JobPool::Batch {
  const std::function<void(int)>* job = nullptr;
  std::condition_variable cv;
  int outstanding = 0;        // queued or running
  std::vector<int> finished;  // finished since the submitter last looked, in finishing order
  std::vector<std::exception_ptr> failures;
  std::vector<bool> ran;
};

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

bool JobPool::Entry::operator<(const Entry& o) const {
  return std::tie(index, rank, seq) < std::tie(o.index, o.rank, o.seq);
}

JobPool::JobPool(int threads) : busy_s_(std::max(1, threads), 0.0) {
  const int n = std::max(1, threads);
  workers_.reserve(n);
  for (int w = 0; w < n; ++w) workers_.emplace_back([this, w] { Work(w); });
}

JobPool::~JobPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void JobPool::Work(int worker) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    const Entry e = *queue_.begin();
    queue_.erase(queue_.begin());
    lock.unlock();
    const double start = ThreadCpuSeconds();
    std::exception_ptr failure;
    try {
      (*e.batch->job)(e.index);
    } catch (...) {
      failure = std::current_exception();
    }
    const double took = ThreadCpuSeconds() - start;
    lock.lock();
    busy_s_[worker] += took;
    Batch& b = *e.batch;
    b.failures[e.index] = failure;
    b.ran[e.index] = true;
    if (!failure) b.finished.push_back(e.index);
    --b.outstanding;
    // Under the lock: the submitter cannot wake, return and free `b` before this call is done.
    b.cv.notify_one();
  }
}

std::vector<bool> JobPool::Run(int count, int64_t rank, const std::function<void(int)>& job,
                               const std::function<bool(int)>& after_each) {
  Batch b;
  b.job = &job;
  b.failures.resize(std::max(0, count));
  b.ran.assign(std::max(0, count), false);
  std::exception_ptr after_failure;
  std::unique_lock<std::mutex> lock(mu_);
  for (int i = 0; i < count; ++i) queue_.insert({i, rank, next_seq_++, &b});
  b.outstanding = std::max(0, count);
  work_cv_.notify_all();
  bool cancelled = false;
  while (b.outstanding > 0 || !b.finished.empty()) {
    b.cv.wait(lock, [&] { return !b.finished.empty() || b.outstanding == 0; });
    std::vector<int> seen;
    seen.swap(b.finished);
    if (cancelled || !after_each || seen.empty()) continue;
    lock.unlock();
    bool stop = false;
    for (int j : seen) {
      try {
        stop = after_each(j);
      } catch (...) {
        // Still wait for the running jobs (they refer to this frame), then rethrow.
        after_failure = std::current_exception();
        stop = true;
      }
      if (stop) break;
    }
    lock.lock();
    if (!stop) continue;
    cancelled = true;
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->batch == &b) {
        it = queue_.erase(it);
        --b.outstanding;
      } else {
        ++it;
      }
    }
  }
  lock.unlock();
  if (after_failure) std::rethrow_exception(after_failure);
  for (const std::exception_ptr& e : b.failures) {
    if (e) std::rethrow_exception(e);
  }
  return b.ran;
}

int JobPool::Queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(queue_.size());
}

std::vector<double> JobPool::BusySeconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return busy_s_;
}

}  // namespace knobsim

// LatencyHistogram: a mergeable log-bucketed histogram for latency percentiles.
//
// Buckets grow geometrically so that any percentile read back is within 1 % (relative) of a
// value actually recorded near it (docs/design.md §3.5). Means never come from here: callers keep
// exact sums. Merging two histograms gives exactly the histogram of the union of their samples.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/input_error.h"

namespace knobsim {

class LatencyHistogram {
 public:
  LatencyHistogram();

  void Record(double value);  // value >= 0 (any unit; knobsim records milliseconds)
  void Merge(const LatencyHistogram& other);
  void Clear();

  uint64_t count() const { return count_; }
  // The q-quantile (q in [0, 1]) of the recorded values; 0 when empty. Relative error <= 1 %.
  double Quantile(double q) const;

  // Everything a histogram holds, so that one written to a file reads back identical (sharded
  // sweeps carry every replication's histogram to `knobsim merge`, sim/io/run_result_json.h).
  struct Contents {
    std::vector<std::pair<int, uint64_t>> buckets;  // (bucket, count > 0), increasing bucket
    uint64_t zero_count = 0;                        // values below the smallest bucket
    uint64_t count = 0;
    double min = 0, max = 0;
    bool operator==(const Contents&) const = default;
  };
  Contents contents() const;
  // The histogram holding `contents`, or an error that is only a message saying why no
  // histogram could hold them (a bucket out of range or repeated, counts that do not add up,
  // min > max).
  static Expected<LatencyHistogram> FromContents(const Contents& contents);
  static int BucketCount();  // buckets are numbered 0 .. BucketCount() - 1

 private:
  int BucketOf(double value) const;
  double BucketValue(int bucket) const;

  // Makes bucket b addressable: widens the window [first_, first_ + buckets_.size()) to hold it,
  // with slack so that a range that keeps growing costs amortized O(1) per sample.
  void Cover(int b);

  // The counters of the buckets seen so far only, bucket b at buckets_[b - first_]: a
  // workload's latencies span a few decades, a few KiB, where all kBuckets would take 50 KiB
  // (a timeline keeps one histogram per workload and step).
  std::vector<uint64_t> buckets_;
  int first_ = 0;
  uint64_t zero_count_ = 0;  // values below the smallest bucket
  uint64_t count_ = 0;
  double min_ = 0, max_ = 0;
};

}  // namespace knobsim

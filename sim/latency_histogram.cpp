#include "sim/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace knobsim {

// The bucket of a positive double is read straight from its bits: the exponent and the top
// kSubBits bits of the mantissa. Each power of two splits into 2^kSubBits equal buckets, so a
// bucket is at most 1/128 (0.78 %) wide relative to its lower edge and its geometric midpoint
// is within 0.39 % of anything in it; and Record costs no logarithm on the completion path.
// Range [2^-20, 2^30), about 1e-6 to 1e9: nanoseconds to twelve days when recording
// milliseconds. 6400 buckets; only those between the smallest and the largest value seen are
// held (with some slack), so idle workloads cost nothing and busy ones a few KiB.
namespace {

constexpr int kSubBits = 7;
constexpr int kMinExponent = -20;
constexpr int kMaxExponent = 30;
constexpr int kBuckets = (kMaxExponent - kMinExponent) << kSubBits;
constexpr int kMantissaBits = 52;
constexpr uint64_t kFirstKey = static_cast<uint64_t>(1023 + kMinExponent) << kSubBits;
const double kLowest = std::ldexp(1.0, kMinExponent);

// The lower edge of bucket b; b == kBuckets gives the upper edge of the last bucket.
double LowerEdge(int bucket) {
  return std::bit_cast<double>((kFirstKey + static_cast<uint64_t>(bucket))
                               << (kMantissaBits - kSubBits));
}

}  // namespace

LatencyHistogram::LatencyHistogram() = default;

int LatencyHistogram::BucketOf(double value) const {
  uint64_t key = std::bit_cast<uint64_t>(value) >> (kMantissaBits - kSubBits);
  uint64_t bucket = key - kFirstKey;  // callers pass value >= kLowest, so no wrap-around
  return bucket < static_cast<uint64_t>(kBuckets) ? static_cast<int>(bucket) : kBuckets - 1;
}

double LatencyHistogram::BucketValue(int bucket) const {
  return std::sqrt(LowerEdge(bucket) * LowerEdge(bucket + 1));
}

void LatencyHistogram::Record(double value) {
  // Negative and NaN values are caller bugs; counting them as zero keeps count() honest and the
  // min/max (hence every quantile) finite.
  if (!(value > 0)) value = 0;
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
  if (value < kLowest) {
    ++zero_count_;
    return;
  }
  const int b = BucketOf(value);
  if (b < first_ || b >= first_ + static_cast<int>(buckets_.size())) Cover(b);
  ++buckets_[b - first_];
}

void LatencyHistogram::Cover(int b) {
  if (buckets_.empty()) {
    first_ = b;
    buckets_.assign(1, 0);
    return;
  }
  const int size = static_cast<int>(buckets_.size());
  const int slack = std::max(16, size / 2);
  if (b < first_) {
    const int from = std::max(0, std::min(b, first_ - slack));
    buckets_.insert(buckets_.begin(), static_cast<size_t>(first_ - from), 0);
    first_ = from;
  } else if (b >= first_ + size) {
    const int to = std::min(kBuckets, std::max(b + 1, first_ + size + slack));
    buckets_.resize(static_cast<size_t>(to - first_), 0);
  }
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  zero_count_ += other.zero_count_;
  if (other.buckets_.empty()) return;
  Cover(other.first_);
  Cover(other.first_ + static_cast<int>(other.buckets_.size()) - 1);
  for (size_t i = 0; i < other.buckets_.size(); ++i)
    buckets_[static_cast<size_t>(other.first_ - first_) + i] += other.buckets_[i];
}

void LatencyHistogram::Clear() {
  // Keeps the counters allocated: a histogram cleared at the end of warm-up fills again at once.
  std::fill(buckets_.begin(), buckets_.end(), 0);
  zero_count_ = 0;
  count_ = 0;
  min_ = max_ = 0;
}

double LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Nearest rank: the smallest recorded value with at least q * count values at or below it.
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  if (rank <= zero_count_) return min_;
  uint64_t seen = zero_count_;
  int b = first_;
  for (size_t i = 0; i < buckets_.size(); ++i, ++b) {
    seen += buckets_[i];
    if (seen >= rank) break;
  }
  b = std::min(b, kBuckets - 1);
  // The midpoint may lie outside what was recorded (a single value, or the extreme buckets);
  // clamping makes those cases exact and can only move the answer closer to the truth.
  return std::clamp(BucketValue(b), min_, max_);
}

LatencyHistogram::Contents LatencyHistogram::contents() const {
  Contents c;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    if (buckets_[i] > 0) c.buckets.emplace_back(first_ + static_cast<int>(i), buckets_[i]);
  }
  c.zero_count = zero_count_;
  c.count = count_;
  c.min = min_;
  c.max = max_;
  return c;
}

Expected<LatencyHistogram> LatencyHistogram::FromContents(const Contents& c) {
  auto fail = [](std::string why) { return InputError{"", 0, "", std::move(why), ""}; };
  LatencyHistogram h;
  uint64_t sum = c.zero_count;
  int previous = -1;
  for (const auto& [bucket, n] : c.buckets) {
    if (bucket <= previous || bucket >= kBuckets) {
      return fail("bucket " + std::to_string(bucket) + " is out of order or outside 0.." +
                  std::to_string(kBuckets - 1));
    }
    if (n == 0 || sum + n < sum)
      return fail("bucket " + std::to_string(bucket) + " has a bad count");
    previous = bucket;
    sum += n;
    h.Cover(bucket);
    h.buckets_[bucket - h.first_] = n;
  }
  if (sum != c.count) {
    return fail("the buckets hold " + std::to_string(sum) + " values, count says " +
                std::to_string(c.count));
  }
  // Record keeps 0 <= min <= max (both 0 when empty); anything else is not a histogram's.
  if (!(c.min >= 0 && c.min <= c.max && std::isfinite(c.max)) ||
      (c.count == 0 && (c.min != 0 || c.max != 0))) {
    return fail("min and max must satisfy 0 <= min <= max (both 0 when empty)");
  }
  h.zero_count_ = c.zero_count;
  h.count_ = c.count;
  h.min_ = c.min;
  h.max_ = c.max;
  return h;
}

int LatencyHistogram::BucketCount() {
  return kBuckets;
}

}  // namespace knobsim

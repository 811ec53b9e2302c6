#include "sim/scheduler/fgd/go_rand.h"

#include <cstddef>

namespace knobsim::fgd {

namespace {

constexpr int32_t kInt32Max = 2147483647;  // 2^31 - 1

// seedrand: x <- 48271·x mod (2^31 − 1), Schrage's method so that nothing overflows.
int32_t SeedStep(int32_t x) {
  constexpr int32_t A = 48271, Q = 44488, R = 3399;
  const int32_t hi = x / Q;
  const int32_t lo = x % Q;
  x = A * lo - R * hi;
  if (x < 0) x += kInt32Max;
  return x;
}

}  // namespace

void GoRand::Seed(int64_t seed) {
  tap_ = 0;
  feed_ = kLen - kTap;
  seed %= kInt32Max;
  if (seed < 0) seed += kInt32Max;
  if (seed == 0) seed = 89482311;
  int32_t x = static_cast<int32_t>(seed);
  for (int i = -20; i < kLen; ++i) {
    x = SeedStep(x);
    if (i >= 0) {
      // Shifts on the unsigned value: Go's int64 shifts wrap, C++ signed ones must not overflow.
      uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(x)) << 40;
      x = SeedStep(x);
      u ^= static_cast<uint64_t>(static_cast<int64_t>(x)) << 20;
      x = SeedStep(x);
      u ^= static_cast<uint64_t>(static_cast<int64_t>(x));
      u ^= static_cast<uint64_t>(kGoRngCooked[i]);
      vec_[i] = static_cast<int64_t>(u);
    }
  }
}

int64_t GoRand::Int63() {
  if (--tap_ < 0) tap_ += kLen;
  if (--feed_ < 0) feed_ += kLen;
  // Wrapping 64-bit addition, as Go's.
  const uint64_t x = static_cast<uint64_t>(vec_[feed_]) + static_cast<uint64_t>(vec_[tap_]);
  vec_[feed_] = static_cast<int64_t>(x);
  return static_cast<int64_t>(x & 0x7fffffffffffffffULL);
}

int GoRand::Intn(int n) {
  if (n <= 0) return 0;  // Go panics; callers never ask (there is always something to draw)
  if ((n & (n - 1)) == 0) return Int31() & (n - 1);
  const int32_t max =
      static_cast<int32_t>(kInt32Max - static_cast<int32_t>((uint32_t{1} << 31) % uint32_t(n)));
  int32_t v = Int31();
  while (v > max) v = Int31();
  return v % n;
}

int GoRand::Int31nLemire(int n) {
  uint32_t v = Uint32();
  uint64_t prod = uint64_t{v} * uint64_t(n);
  uint32_t low = static_cast<uint32_t>(prod);
  if (low < uint32_t(n)) {
    const uint32_t thresh = (0u - uint32_t(n)) % uint32_t(n);
    while (low < thresh) {
      v = Uint32();
      prod = uint64_t{v} * uint64_t(n);
      low = static_cast<uint32_t>(prod);
    }
  }
  return static_cast<int>(prod >> 32);
}

std::vector<int> GoRand::Perm(int n) {
  std::vector<int> m(static_cast<size_t>(n > 0 ? n : 0));
  for (int i = 0; i < n; ++i) {
    const int j = Intn(i + 1);
    m[i] = m[j];
    m[j] = i;
  }
  return m;
}

}  // namespace knobsim::fgd

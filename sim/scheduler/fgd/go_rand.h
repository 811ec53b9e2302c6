// GoRand: Go's math/rand generator (the additive lagged Fibonacci source of Go 1.19/1.20, seeded
// the way `rand.Seed` does it), replicated bit for bit.
//
// Why: the FGD paper's result files come from a Go simulator that draws its shuffle, its tuning
// copies and its node tie-break order from the global math/rand generator. Only the very same
// stream reproduces those files cell for cell (docs/fgd-policies.md §2.2); any other generator
// matches them only statistically.
#pragma once

#include <cstdint>
#include <vector>

namespace knobsim::fgd {

class GoRand {
 public:
  static constexpr int kLen = 607;  // rngLen
  static constexpr int kTap = 273;  // rngTap

  explicit GoRand(int64_t seed) { Seed(seed); }

  // rand.Seed(seed): docs/fgd-policies.md §2.2 "Seed(s)".
  void Seed(int64_t seed);

  int64_t Int63();  // sign bit cleared
  int32_t Int31() { return static_cast<int32_t>(Int63() >> 32); }
  uint32_t Uint32() { return static_cast<uint32_t>(Int63() >> 31); }
  int64_t Int() { return Int63(); }  // 64-bit Go: Int() is Int63()

  // rand.Intn(n) for 0 < n < 2^31 (Int31n: rejection sampling, one draw per try).
  int Intn(int n);
  // Lemire's bounded draw, Go's unexported int31n (Shuffle's draw).
  int Int31nLemire(int n);
  // rand.Shuffle(n, swap) applied to `v`.
  template <class T>
  void Shuffle(std::vector<T>& v) {
    for (int i = static_cast<int>(v.size()) - 1; i > 0; --i) {
      const int j = Int31nLemire(i + 1);
      std::swap(v[i], v[j]);
    }
  }
  // rand.Perm(n).
  std::vector<int> Perm(int n);

 private:
  int tap_ = 0;
  int feed_ = 0;
  int64_t vec_[kLen];
};

// Go's rngCooked table (go_rand_cooked.cpp, under Go's licence).
extern const int64_t kGoRngCooked[GoRand::kLen];

}  // namespace knobsim::fgd

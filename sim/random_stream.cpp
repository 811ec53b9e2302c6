#include "sim/random_stream.h"

#include <bit>
#include <cmath>

namespace knobsim {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// The splitmix64 finaliser: a bijection with full avalanche, so seeds or hashes that differ in
// one bit give unrelated words.
uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t HashName(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

RandomStream::RandomStream(uint64_t run_seed, std::string_view name) {
  // The seed is mixed before the hash is folded in, and the result mixed again: FNV-1a is weak
  // in its low bits and both inputs are often small or similar (seeds 1, 2, 3; names that differ
  // in the last character), so a plain XOR would make (seed, name) pairs collide or correlate.
  uint64_t state = Mix64(Mix64(run_seed + kGolden) ^ HashName(name));
  // Then the splitmix64 generator fills the xoshiro state. Mix64 is a bijection and its four
  // inputs differ, so the four words differ and cannot all be zero (the state xoshiro avoids).
  for (uint64_t& word : s_) {
    state += kGolden;
    word = Mix64(state);
  }
}

uint64_t RandomStream::NextU64() {
  // xoshiro256** (Blackman and Vigna, 2018).
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double RandomStream::Uniform01() {
  return static_cast<double>(NextU64() >> 11) * 0x1.0p-53;
}

double RandomStream::UniformOpen01() {
  // 52 bits and a half-step offset: the largest value, 1 - 2^-53, is still representable below
  // 1, which would not hold for 53 bits plus a half step (it would round up to 1).
  return (static_cast<double>(NextU64() >> 12) + 0.5) * 0x1.0p-52;
}

uint64_t RandomStream::Below(uint64_t n) {
  if (n == 0) return 0;
  // Lemire's multiply-and-reject: the high word of x * n is uniform in [0, n) once the few low
  // words that would bias it are rejected; the division runs only on the rare near-rejection.
  __extension__ using U128 = unsigned __int128;
  U128 m = static_cast<U128>(NextU64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<U128>(NextU64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double RandomStream::Exponential(double mean) {
  return -mean * std::log(UniformOpen01());
}

double RandomStream::Normal() {
  // Marsaglia's polar method. The second variate is dropped rather than cached so that a stream
  // is only its xoshiro state: copies and interleaved draws stay easy to reason about.
  for (;;) {
    const double u = 2.0 * Uniform01() - 1.0;
    const double v = 2.0 * Uniform01() - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double RandomStream::LogNormal(double mean, double cv) {
  if (cv <= 0.0) return mean;
  // Moments of a lognormal: E = exp(mu + sigma^2 / 2), cv^2 = exp(sigma^2) - 1.
  const double sigma2 = std::log1p(cv * cv);
  const double mu = std::log(mean) - 0.5 * sigma2;
  return std::exp(mu + std::sqrt(sigma2) * Normal());
}

double RandomStream::Gamma(double shape, double scale) {
  if (shape < 1.0) {
    // Marsaglia and Tsang need shape >= 1; Gamma(a) = Gamma(a + 1) * U^(1/a) covers the rest.
    const double boost = std::pow(UniformOpen01(), 1.0 / shape);
    return Gamma(shape + 1.0, scale) * boost;
  }
  // Marsaglia and Tsang (2000), "A simple method for generating gamma variables".
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = Normal();
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = UniformOpen01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v * scale;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v * scale;
  }
}

}  // namespace knobsim

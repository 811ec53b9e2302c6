// Randomness of the export generator: splitmix64 streams, one per purpose, and the hashes that
// make noise and names a function of (seed, key) alone.
//
// Contract: the same seed gives the same draws on every standard library, so nothing here uses
// std::uniform_*_distribution (implementation-defined). A stream per purpose (Stream) keeps a
// draw added for one thing from moving the others; HashUnit gives metric noise that depends on
// the instant only, so series sampled at different steps agree where they meet. Internal to
// tools/gen-export.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <string_view>

namespace knobsim::gen_export {

// ---- Randomness --------------------------------------------------------------------------
//
// splitmix64 (Steele, Lea, Flood 2014) and our own mappings to ranges: the standard library's
// distributions are implementation-defined, and the same seed must give the same bytes.

inline constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline double ToUnit(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

inline uint64_t HashText(std::string_view text) {  // FNV-1a, then mixed
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return Mix64(h);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() { return Mix64(state_ += kGolden); }
  double Unit() { return ToUnit(Next()); }
  double Between(double lo, double hi) { return lo + (hi - lo) * Unit(); }
  // lo..hi inclusive; the modulo bias (< 2^-40 for our ranges) does not matter here.
  int Int(int lo, int hi) {
    return lo + static_cast<int>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(double p) { return Unit() < p; }
  std::string Chars(std::string_view alphabet, int n) {
    std::string s;
    s.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) s.push_back(alphabet[Next() % alphabet.size()]);
    return s;
  }
  std::string Hex(int n) { return Chars("0123456789abcdef", n); }
  // Exponential with mean 1 (inversion; 1 - U is never 0).
  double Exponential() { return -std::log(1.0 - Unit()); }
  // Standard normal (Box-Muller; the second value is not kept, so draws stay one call each).
  double Normal() {
    const double u1 = 1.0 - Unit();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * Unit());
  }
  // Gamma with the given shape and scale 1: Marsaglia and Tsang (2000) for shape >= 1, and
  // Gamma(shape + 1) × U^(1/shape) below 1.
  double Gamma(double shape) {
    if (shape < 1) return Gamma(shape + 1) * std::pow(1.0 - Unit(), 1 / shape);
    const double d = shape - 1.0 / 3.0;
    const double c = 1 / std::sqrt(9 * d);
    while (true) {
      double x = 0, v = 0;
      do {
        x = Normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = 1.0 - Unit();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
    }
  }
  // Random (version 4) UUID text, as Kubernetes writes metadata.uid.
  std::string Uuid() {
    const std::string h = Hex(32);
    const char variant = "89ab"[Next() % 4];
    return fmt::format("{}-{}-4{}-{}{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(13, 3),
                       variant, h.substr(17, 3), h.substr(20, 12));
  }

 private:
  uint64_t state_;
};

// One stream per purpose, so that a draw added for one thing does not move the others.
enum Purpose : uint64_t { kNodesStream = 1, kWorkloadsStream, kSecretsStream, kPodStreamBase };

inline Rng Stream(uint64_t seed, uint64_t purpose) {
  return Rng(Mix64(seed ^ Mix64(purpose * kGolden)));
}

// Noise as a function of (seed, series, instant) alone: a metric sampled every 5 minutes sees
// the same value at 12:05 as one sampled every minute.
inline double HashUnit(uint64_t seed, uint64_t series, int64_t t) {
  uint64_t h = Mix64(seed + kGolden);
  h = Mix64(h ^ (series * 0xD1B54A32D192ED03ull));
  h = Mix64(h ^ static_cast<uint64_t>(t));
  return ToUnit(h);
}

// Kubernetes' name suffix alphabet (apimachinery rand.SafeEncodeString: no vowels, no 0/1/3).
inline constexpr std::string_view kKubeAlphabet = "bcdfghjklmnpqrstvwxz2456789";
inline constexpr std::string_view kLowerAlnum = "0123456789abcdefghijklmnopqrstuvwxyz";
inline constexpr std::string_view kBase62 =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

}  // namespace knobsim::gen_export

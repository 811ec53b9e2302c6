#include "sim/io/evidence_fingerprint.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "sim/random_stream.h"

namespace knobsim {
namespace {

// A 64-bit running hash fed with words: each word is mixed in with splitmix64's finaliser, so
// that a few bits of difference anywhere spread over the whole value.
class Hash64 {
 public:
  void Add(uint64_t word) {
    h_ ^= word + 0x9e3779b97f4a7c15ULL + (h_ << 6) + (h_ >> 2);
    h_ = Mix(h_);
  }
  void Add(std::string_view text) {
    Add(HashName(text));
    Add(static_cast<uint64_t>(text.size()));
  }
  void Add(double v) { Add(std::bit_cast<uint64_t>(v == 0 ? 0.0 : v)); }  // -0 as 0
  uint64_t value() const { return h_; }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t h_ = 0x6b6e6f6273696d31ULL;  // "knobsim1"
};

// Objects of one kind hashed one by one and combined in sorted order: the order they were read
// in (files, items) does not change the fingerprint.
uint64_t Unordered(std::vector<uint64_t> parts) {
  std::sort(parts.begin(), parts.end());
  Hash64 h;
  h.Add(static_cast<uint64_t>(parts.size()));
  for (uint64_t p : parts) h.Add(p);
  return h.value();
}

uint64_t SeriesHash(const PromSeries& s) {
  Hash64 h;
  for (const auto& [key, value] : s.labels) {  // std::map: sorted by key
    h.Add(std::string_view(key));
    h.Add(std::string_view(value));
  }
  h.Add(static_cast<uint64_t>(s.times.size()));
  for (size_t i = 0; i < s.times.size(); ++i) {
    h.Add(s.times[i]);
    h.Add(i < s.values.size() ? s.values[i] : 0.0);
  }
  return h.value();
}

}  // namespace

std::string EvidenceFingerprint(const KubeObjects& objects, std::span<const PromResult> results) {
  std::vector<uint64_t> nodes, pods, series;
  for (const NodeSpec& n : objects.nodes) {
    Hash64 h;
    h.Add(std::string_view(n.name));
    nodes.push_back(h.value());
  }
  for (const PodSpec& p : objects.pods) {
    Hash64 h;
    h.Add(std::string_view(p.namespace_));
    h.Add(std::string_view(p.name));
    h.Add(std::string_view(p.node_name));
    pods.push_back(h.value());
  }
  for (const PromResult& r : results)
    for (const PromSeries& s : r.series) series.push_back(SeriesHash(s));
  Hash64 all;
  all.Add(Unordered(std::move(nodes)));
  all.Add(Unordered(std::move(pods)));
  all.Add(Unordered(std::move(series)));
  char text[32];
  std::snprintf(text, sizeof text, "kf1-%016llx", static_cast<unsigned long long>(all.value()));
  return text;
}

bool IsEvidenceFingerprint(const std::string& text) {
  if (text.size() != 20 || text.compare(0, 4, "kf1-") != 0) return false;
  return std::all_of(text.begin() + 4, text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace knobsim

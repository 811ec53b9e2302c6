#include "sim/mig_layout.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "models/mig_profiles.h"
#include "sim/text.h"

namespace knobsim {
namespace {

constexpr std::string_view kLayoutForm =
    "profiles joined by +, each with an optional count, e.g. 1g.10gb*7 or "
    "3g.40gb+2g.20gb+1g.10gb*2";

std::vector<std::string> ProfileNames(std::string_view gpu_type) {
  std::vector<std::string> names;
  for (const MigProfile& p : MigProfilesOf(gpu_type)) names.push_back(p.name);
  return names;
}

}  // namespace

std::optional<MigProfileSize> ReadMigProfileName(std::string_view profile) {
  // A whole positive number of at most 4 digits, nothing else.
  auto number = [](std::string_view digits, int* out) {
    const char* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, *out);
    return digits.size() <= 4 && ec == std::errc() && ptr == end && *out > 0;
  };
  const size_t g = profile.find("g.");
  if (g == std::string_view::npos || profile.size() < g + 5 ||
      profile.substr(profile.size() - 2) != "gb")
    return std::nullopt;
  MigProfileSize size;
  if (!number(profile.substr(0, g), &size.compute_slices) ||
      !number(profile.substr(g + 2, profile.size() - g - 4), &size.nominal_gib))
    return std::nullopt;
  return size;
}

MigLayoutText ParseMigLayout(std::string_view text) {
  MigLayoutText out;
  MigLayout layout;
  auto fail = [&](std::string error) {
    out.error = std::move(error);
    out.hint = std::string(kLayoutForm);
    return out;
  };
  if (text.empty()) return fail("an empty MIG layout");
  for (size_t from = 0; from <= text.size();) {
    const size_t plus = std::min(text.find('+', from), text.size());
    const std::string_view item = text.substr(from, plus - from);
    from = plus + 1;
    std::string_view profile = item;
    int count = 1;
    size_t mark = item.find_first_of("*x");
    size_t mark_len = 1;
    if (size_t times = item.find("\u00d7"); times != std::string_view::npos && times < mark) {
      mark = times;
      mark_len = std::string_view("\u00d7").size();
    }
    if (mark != std::string_view::npos) {
      profile = item.substr(0, mark);
      const std::string_view n = item.substr(mark + mark_len);
      if (n.size() != 1 || n[0] < '1' || n[0] > '7')
        return fail("MIG layout item " + std::string(item) + " has a count outside 1..7");
      count = n[0] - '0';
    }
    if (!ReadMigProfileName(profile))
      return fail("MIG layout item " + Quote(std::string(item)) + " is not a profile");
    for (int i = 0; i < count; ++i) layout.instances.emplace_back(profile);
  }
  const bool one_profile =
      std::all_of(layout.instances.begin(), layout.instances.end(),
                  [&](const std::string& p) { return p == layout.instances.front(); });
  layout.strategy = one_profile ? MigStrategy::kSingle : MigStrategy::kMixed;
  out.layout = std::move(layout);
  return out;
}

std::string MigLayoutString(const std::vector<std::string>& instances) {
  std::string text;
  for (size_t i = 0; i < instances.size();) {
    size_t j = i;
    while (j < instances.size() && instances[j] == instances[i]) ++j;
    if (!text.empty()) text += '+';
    text += instances[i];
    if (j - i > 1) text += '*' + std::to_string(j - i);
    i = j;
  }
  return text;
}

std::optional<MigLayoutProblem> CheckMigLayout(std::string_view gpu_type, const MigLayout& layout) {
  if (MigProfilesOf(gpu_type).empty()) {
    return MigLayoutProblem{
        "knobsim has no MIG geometry for GPU type " + Quote(std::string(gpu_type)),
        "MIG is modelled on A100-40G, A100-80G, H100 and H200"};
  }
  if (layout.instances.empty()) {
    return MigLayoutProblem{"a MIG layout needs at least one instance per card",
                            std::string(kLayoutForm)};
  }
  std::vector<const MigProfile*> instances;
  for (const std::string& name : layout.instances) {
    const MigProfile* p = FindMigProfile(gpu_type, name);
    if (p == nullptr) {
      return MigLayoutProblem{std::string(gpu_type) + " has no MIG profile " + Quote(name),
                              "its profiles: " + Join(ProfileNames(gpu_type))};
    }
    instances.push_back(p);
  }
  if (layout.strategy == MigStrategy::kSingle &&
      std::any_of(layout.instances.begin(), layout.instances.end(),
                  [&](const std::string& p) { return p != layout.instances.front(); })) {
    return MigLayoutProblem{
        "the single MIG strategy advertises one profile as nvidia.com/gpu, but the layout has "
        "several",
        "use strategy mixed, or one profile"};
  }
  if (!MigLayoutFits(instances)) {
    return MigLayoutProblem{
        "the MIG instances " + MigLayoutString(layout.instances) + " do not fit one " +
            std::string(gpu_type) + " card",
        "a card has 7 compute and 8 memory slices, each profile at its own offsets "
        "(docs/scenario.md \"MIG\")"};
  }
  return std::nullopt;
}

void AddMigInstanceTypes(Scenario& scenario) {
  for (const NodePool& pool : scenario.node_pools) {
    std::vector<std::string> names = pool.mig.instances;
    if (pool.dra.dynamic_mig) {
      for (const MigProfile& p : MigProfilesOf(pool.gpu_type)) names.push_back(p.name);
    }
    for (const std::string& name : names) {
      const GpuType* card = scenario.catalog.Find(pool.gpu_type);
      const MigProfile* profile = FindMigProfile(pool.gpu_type, name);
      if (card == nullptr || profile == nullptr) continue;  // CheckMigLayout refused these
      if (scenario.catalog.Find(MigInstanceTypeName(card->name, name)) != nullptr) continue;
      scenario.catalog.Put(MigInstanceType(*card, *profile));
    }
  }
}

}  // namespace knobsim

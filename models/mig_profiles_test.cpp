#include "models/mig_profiles.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

namespace knobsim {
namespace {

std::vector<const MigProfile*> Layout(std::string_view gpu, std::vector<std::string> names) {
  std::vector<const MigProfile*> out;
  for (const std::string& n : names) {
    const MigProfile* p = FindMigProfile(gpu, n);
    REQUIRE_MESSAGE(p != nullptr, n);
    out.push_back(p);
  }
  return out;
}

}  // namespace

TEST_CASE("each MIG-capable card has the user guide's six profiles, named by its memory") {
  struct Row {
    const char* gpu;
    std::vector<std::string> names;
  };
  for (const Row& row : {
           Row{"A100-40G", {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}},
           Row{"A100-80G", {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
           Row{"H100", {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
           Row{"H200", {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}},
       }) {
    CAPTURE(row.gpu);
    const auto profiles = MigProfilesOf(row.gpu);
    REQUIRE(profiles.size() == row.names.size());
    for (size_t i = 0; i < profiles.size(); ++i) CHECK(profiles[i].name == row.names[i]);
  }
  CHECK(MigProfilesOf("A10").empty());  // not MIG-capable
  CHECK(MigProfilesOf("L4").empty());
  CHECK(FindMigProfile("H100", "1g.5gb") == nullptr);  // an A100-40G name
}

TEST_CASE("a profile fits a card as many times as the guide's instance count, and no more") {
  struct Row {
    const char* profile;
    int most;
  };
  for (const Row& row : {Row{"1g.10gb", 7}, Row{"1g.20gb", 4}, Row{"2g.20gb", 3}, Row{"3g.40gb", 2},
                         Row{"4g.40gb", 1}, Row{"7g.80gb", 1}}) {
    CAPTURE(row.profile);
    CHECK(MigMostInstances(*FindMigProfile("H100", row.profile)) == row.most);
    std::vector<std::string> names(row.most, row.profile);
    CHECK(MigLayoutFits(Layout("H100", names)));
    names.push_back(row.profile);
    CHECK_FALSE(MigLayoutFits(Layout("H100", names)));
  }
}

TEST_CASE("mixed layouts fit when the memory slices can be placed without overlap") {
  struct Row {
    std::vector<std::string> layout;
    bool fits;
  };
  for (const Row& row : {
           // mig-parted's all-balanced for A100-40GB: 3g at 4, 2g at 0, the 1g at 2 and 3.
           Row{{"1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"}, true},
           Row{{"4g.20gb", "3g.20gb"}, true},
           Row{{"3g.20gb", "3g.20gb"}, true},
           Row{{"4g.20gb", "2g.10gb", "1g.5gb"}, true},
           Row{{"3g.20gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb"}, true},
           Row{{"1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb", "1g.5gb"}, true},    // 1g.10gb at 6
           Row{{"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb"}, false},  // 9 slices
           Row{{"4g.20gb", "4g.20gb"}, false},                                  // one start only
           Row{{"7g.40gb", "1g.5gb"}, false},                        // the whole card is taken
           Row{{"2g.10gb", "2g.10gb", "2g.10gb", "1g.10gb"}, true},  // 1g.10gb at 6
           Row{{"2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb", "1g.5gb"}, false},  // no 1g at 7
           Row{{}, true},
       }) {
    std::string text;
    for (const std::string& n : row.layout) text += n + " ";
    CAPTURE(text);
    CHECK(MigLayoutFits(Layout("A100-40G", row.layout)) == row.fits);
  }
}

TEST_CASE("placement starts: larger instances first, each at its lowest free start") {
  struct Row {
    std::vector<std::string> layout;
    std::vector<int> starts;  // in the layout's order; empty: does not fit
  };
  for (const Row& row : {
           // With 3g at 0 and 2g at 4 the second small 1g finds no start (slice 7 is not
           // one), so 3g moves to 4: the guide's all-balanced placement.
           Row{{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}, {4, 0, 2, 3}},
           Row{{"1g.10gb", "3g.40gb"}, {4, 0}},
           Row{{"7g.80gb"}, {0}},
           Row{{"1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb"}, {0, 2, 4, 6}},
           Row{{"4g.40gb", "4g.40gb"}, {}},
       }) {
    CHECK(MigPlacementStarts(Layout("H100", row.layout)) == row.starts);
  }
}

TEST_CASE("every placement of a card: the guide's instance counts, 19 on a 7-slice card") {
  const std::vector<MigPlacement> all = MigAllPlacements("H100");
  std::map<std::string, std::vector<int>> starts;
  for (const MigPlacement& p : all) starts[p.profile->name].push_back(p.start);
  CHECK(starts == std::map<std::string, std::vector<int>>{{"1g.10gb", {0, 1, 2, 3, 4, 5, 6}},
                                                          {"1g.20gb", {0, 2, 4, 6}},
                                                          {"2g.20gb", {0, 2, 4}},
                                                          {"3g.40gb", {0, 4}},
                                                          {"4g.40gb", {0}},
                                                          {"7g.80gb", {0}}});
  CHECK(all.size() == 18);
  CHECK(MigAllPlacements("L4").empty());
}

TEST_CASE("a MIG instance is a smaller card: memory slices / 8 and compute slices / 7") {
  const GpuType h100{"H100", 81559, 7.9, 500, "nvlink", ""};
  const GpuType one = MigInstanceType(h100, *FindMigProfile("H100", "1g.10gb"));
  CHECK(one.name == "H100 MIG 1g.10gb");
  CHECK(one.memory_mib == 81559 / 8);
  CHECK(one.speed == doctest::Approx(7.9 / 7));
  CHECK(one.context_mib == 500);
  CHECK(one.interconnect.empty());
  const GpuType three = MigInstanceType(h100, *FindMigProfile("H100", "3g.40gb"));
  CHECK(three.memory_mib == 81559 * 4 / 8);
  CHECK(three.speed == doctest::Approx(7.9 * 3 / 7));
  const GpuType all = MigInstanceType(h100, *FindMigProfile("H100", "7g.80gb"));
  CHECK(all.memory_mib == 81559);
  CHECK(all.speed == doctest::Approx(7.9));
}

}  // namespace knobsim

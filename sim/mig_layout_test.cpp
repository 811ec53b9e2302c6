#include "sim/mig_layout.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace knobsim {

TEST_CASE("a MIG layout's text: profiles joined by +, each with an optional count") {
  struct Case {
    const char* text;
    std::vector<std::string> instances;  // empty: refused
    MigStrategy strategy = MigStrategy::kSingle;
  };
  const std::vector<Case> cases = {
      {"1g.10gb", {"1g.10gb"}},
      {"1g.10gb*3", {"1g.10gb", "1g.10gb", "1g.10gb"}},
      {"1g.10gbx2", {"1g.10gb", "1g.10gb"}},
      {"1g.10gb\u00d72", {"1g.10gb", "1g.10gb"}},
      {"3g.40gb+1g.10gb*2", {"3g.40gb", "1g.10gb", "1g.10gb"}, MigStrategy::kMixed},
      {"7g.141gb", {"7g.141gb"}},
      {"", {}},
      {"1g.10gb+", {}},
      {"1g.10gb*0", {}},
      {"1g.10gb*12", {}},
      {"10gb", {}},
      {"1g.10", {}},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.text));
    const MigLayoutText parsed = ParseMigLayout(c.text);
    if (c.instances.empty()) {
      CHECK_FALSE(parsed.layout.has_value());
      CHECK_FALSE(parsed.error.empty());
      continue;
    }
    REQUIRE(parsed.layout.has_value());
    CHECK(parsed.layout->instances == c.instances);
    CHECK(parsed.layout->strategy == c.strategy);
  }
}

TEST_CASE("a profile's name gives its compute slices and nominal GiB") {
  CHECK(ReadMigProfileName("3g.40gb")->compute_slices == 3);
  CHECK(ReadMigProfileName("3g.40gb")->nominal_gib == 40);
  CHECK(ReadMigProfileName("7g.141gb")->nominal_gib == 141);
  for (const char* bad : {"", "g.10gb", "1g.gb", "1g.10", "ag.10gb", "1g.1xgb", "0g.10gb"}) {
    CAPTURE(std::string(bad));
    CHECK_FALSE(ReadMigProfileName(bad).has_value());
  }
}

TEST_CASE("a layout's text groups runs of one profile, and reads back") {
  const std::vector<std::string> instances = {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"};
  CHECK(MigLayoutString(instances) == "3g.40gb+2g.20gb+1g.10gb*2");
  CHECK(ParseMigLayout(MigLayoutString(instances)).layout->instances == instances);
  CHECK(MigLayoutString(std::vector<std::string>(7, "1g.10gb")) == "1g.10gb*7");
  CHECK(MigLayoutString({}).empty());
}

TEST_CASE("a layout is checked against the card: geometry, profiles, fit, one profile if single") {
  auto layout = [](const char* text) { return *ParseMigLayout(text).layout; };
  CHECK_FALSE(CheckMigLayout("A100-80G", layout("3g.40gb+2g.20gb+1g.10gb*2")).has_value());
  CHECK_FALSE(CheckMigLayout("H200", layout("1g.18gb*7")).has_value());
  CHECK(CheckMigLayout("A10", layout("1g.10gb"))->error ==
        "knobsim has no MIG geometry for GPU type \"A10\"");
  CHECK(CheckMigLayout("A100-40G", layout("1g.10gb*5"))->error ==
        "the MIG instances 1g.10gb*5 do not fit one A100-40G card");
  MigLayout single = layout("3g.40gb+1g.10gb");
  single.strategy = MigStrategy::kSingle;
  CHECK(CheckMigLayout("H100", single)->error.find("single MIG strategy") != std::string::npos);
}

TEST_CASE("the catalog gets one card type per MIG instance profile a pool uses") {
  Scenario s;
  s.catalog = GpuCatalog::BuiltIn();
  NodePool pool;
  pool.name = "p";
  pool.gpu_type = "A100-80G";
  pool.mig = *ParseMigLayout("4g.40gb+2g.20gb+1g.10gb").layout;
  s.node_pools.push_back(pool);
  const size_t before = s.catalog.types().size();
  AddMigInstanceTypes(s);
  AddMigInstanceTypes(s);  // idempotent
  CHECK(s.catalog.types().size() == before + 3);
  const GpuType* four = s.catalog.Find("A100-80G MIG 4g.40gb");
  REQUIRE(four != nullptr);
  CHECK(four->memory_mib == 81920 / 2);
  CHECK(four->speed == doctest::Approx(s.catalog.Find("A100-80G")->speed * 4 / 7));
}

}  // namespace knobsim

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/scheduler/framework.h"

namespace knobsim {
namespace {

TEST_CASE("the default KubeVersion is current upstream without DRA") {
  const KubeVersion v;
  CHECK(v.minor == 35);
  CHECK_FALSE(v.dra);
}

TEST_CASE("kube versions read as 1.<minor>, with v, patch and +dra / -dra") {
  struct Case {
    const char* text;
    int minor;
    bool dra;
  };
  const std::vector<Case> cases = {
      {"1.28", 28, false},      {"v1.35", 35, false},   {"V1.30", 30, false},
      {"1.35+dra", 35, true},   {"1.35-dra", 35, true}, {"v1.33.4", 33, false},
      {"1.34.1+DRA", 34, true}, {"1.9", 9, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const Expected<KubeVersion> v = KubeVersion::Parse(c.text);
    REQUIRE(v.ok());
    CHECK(v->minor == c.minor);
    CHECK(v->dra == c.dra);
  }
}

TEST_CASE("bad kube versions are errors naming the text and the expected form") {
  for (const char* text : {"", "1", "1.", "2.28", "1.x", "1.28dra", "1.28+gpu", "v", "1.28.",
                           " 1.28", "1.28 ", "1..28", "1.-3", "1.28+dra+dra", "1.123456"}) {
    CAPTURE(text);
    CHECK_FALSE(KubeVersion::Parse(text).ok());
  }
  const Expected<KubeVersion> latest = KubeVersion::Parse("latest");
  REQUIRE_FALSE(latest.ok());
  const std::string what = latest.error().message;
  CHECK(what.find("\"latest\"") != std::string::npos);
  CHECK(what.find("1.35+dra") != std::string::npos);
}

}  // namespace
}  // namespace knobsim

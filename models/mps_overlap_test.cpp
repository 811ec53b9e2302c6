#include "models/mps_overlap.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim {
namespace {

std::vector<double> Rates(const std::vector<MpsClient>& clients) {
  std::vector<double> rates(clients.size());
  MpsRates(clients, rates);
  return rates;
}

struct Case {
  const char* rule;
  std::vector<MpsClient> clients;
  std::vector<double> rates;
};

TEST_CASE("mps overlap: the rate table") {
  const Case cases[] = {
      // No profile (d = 1, b = 0) and caps of 100/replicas: each client at its cap, as POLICY 3.
      {"no profile: two replicas at 50 % each", {{0.5, 1, 0}, {0.5, 1, 0}}, {0.5, 0.5}},
      {"no profile: one active of three at its cap", {{0.33, 1, 0}}, {0.33}},
      {"no profile: five replicas at 20 % sum to 1",
       {{0.2, 1, 0}, {0.2, 1, 0}, {0.2, 1, 0}, {0.2, 1, 0}, {0.2, 1, 0}},
       {0.2, 0.2, 0.2, 0.2, 0.2}},
      // One client alone: min(1, a / d).
      {"alone, light: the cap covers its demand", {{0.5, 0.3, 0}}, {1}},
      {"alone, heavy: the cap limits it", {{0.5, 0.8, 0}}, {0.5 / 0.8}},
      {"alone, uncapped", {{1, 0.8, 0}}, {1}},
      // Demands that fit together: both at full speed.
      {"two light clients fit", {{1, 0.3, 0}, {1, 0.4, 0}}, {1, 1}},
      {"two light clients under 50 % caps", {{0.5, 0.3, 0}, {0.5, 0.4, 0}}, {1, 1}},
      // Contended: water-filling.
      {"two heavy uncapped split the card", {{1, 1, 0}, {1, 1, 0}}, {0.5, 0.5}},
      {"heavy and light: the light one keeps its demand",
       {{1, 0.2, 0}, {1, 0.9, 0}},
       {1, 0.8 / 0.9}},
      {"three uncapped: one light, two heavy",
       {{1, 0.1, 0}, {1, 0.8, 0}, {1, 0.8, 0}},
       {1, 0.45 / 0.8, 0.45 / 0.8}},
      {"oversubscribed caps without profiles share evenly", {{0.6, 1, 0}, {0.6, 1, 0}}, {0.5, 0.5}},
      // Memory bandwidth: B = Σ b r over the clients; beyond 1 the users of it slow by 1 / B.
      {"bandwidth that fits costs nothing", {{1, 0.3, 0.4}, {1, 0.3, 0.5}}, {1, 1}},
      {"bandwidth beyond the card slows its users",
       {{1, 0.3, 0.8}, {1, 0.3, 0.7}},
       {1 / 1.5, 1 / 1.5}},
      {"a client without a bandwidth demand is not slowed",
       {{1, 0.3, 0.9}, {1, 0.3, 0}, {1, 0.3, 0.6}},
       {1 / 1.5, 1, 1 / 1.5}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.rule);
    const std::vector<double> got = Rates(c.clients);
    REQUIRE(got.size() == c.rates.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(c.rates[i]));
  }
}

TEST_CASE("mps overlap: without profiles the rates are the caps exactly (today's POLICY 3)") {
  for (int replicas = 2; replicas <= 48; ++replicas) {
    const double cap = static_cast<double>(100 / replicas) / 100;
    for (int active = 1; active <= replicas; ++active) {
      const std::vector<MpsClient> clients(static_cast<size_t>(active), MpsClient{cap, 1, 0});
      for (double r : Rates(clients)) CHECK(r == cap);  // bit for bit: goldens stay
    }
  }
}

TEST_CASE("mps overlap: symmetric clients get symmetric rates") {
  for (double d : {0.2, 0.5, 0.7, 1.0})
    for (int n = 2; n <= 5; ++n) {
      const std::vector<MpsClient> clients(static_cast<size_t>(n), MpsClient{0.6, d, 0.3});
      const std::vector<double> rates = Rates(clients);
      for (double r : rates) CHECK(r == doctest::Approx(rates[0]));
      CHECK(rates[0] <= 1);
      CHECK(rates[0] > 0);
    }
}

TEST_CASE("mps overlap: the demand of a profile") {
  GpuProfile p;
  CHECK(p.SmDemand() == 1);  // no profile: the whole card
  CHECK(p.DramDemand() == 0);
  p.sm_active = 0.3;
  CHECK(p.SmDemand() == doctest::Approx(0.3));  // taken under load
  p.gr_engine_active = 0.6;
  CHECK(p.SmDemand() == doctest::Approx(0.5));  // while the kernels run
  p.dram_active = 0.2;
  CHECK(p.DramDemand() == doctest::Approx(0.2 / 0.6));
  p.sm_active = 0.0001;
  CHECK(p.SmDemand() == kMinSmDemand);
  p.sm_active = 0.9;
  p.gr_engine_active = 0.5;
  CHECK(p.SmDemand() == 1);  // clamped: SM_ACTIVE above GR_ENGINE_ACTIVE is sampling noise
}

}  // namespace
}  // namespace knobsim

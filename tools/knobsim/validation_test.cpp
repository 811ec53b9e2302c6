// docs/validation.md rung 1: the simulator against queueing theory, on the real binary and the
// scenario files under scenarios/validation/. Loads, run lengths and tolerances are the rung's:
// means and busy fractions within 2 % of theory, percentiles within 3 %, conservation exactly
// and Little's law within 0.5 % on every run.
#include <doctest/doctest.h>

#include <cmath>

#include "tools/knobsim/e2e_support.h"

namespace knobsim::e2e {
namespace {

using nlohmann::json;

bool Within(double sim, double theory, double rel) {
  return std::abs(sim - theory) <= rel * std::abs(theory);
}

#define CHECK_WITHIN(sim, theory, rel)                                         \
  do {                                                                         \
    const double s_ = (sim), t_ = (theory);                                    \
    INFO(#sim << " = " << s_ << ", theory " << t_ << ", tolerance " << (rel)); \
    CHECK(Within(s_, t_, rel));                                                \
  } while (0)

// Conservation (exact) and Little's law (0.5 %) hold for every workload of every variant.
void CheckIdentities(const json& doc) {
  for (const json& v : doc.at("variants")) {
    for (const json& w : v.at("workloads")) {
      INFO("variant " << v.at("name") << ", workload " << w.at("name"));
      const json& e = w.at("errors");
      const int64_t errors = e.at("oom").get<int64_t>() + e.at("fake_ready").get<int64_t>() +
                             e.at("timeout").get<int64_t>() + e.at("no_replica").get<int64_t>() +
                             e.at("interrupted").get<int64_t>();
      CHECK(w.at("completed").get<int64_t>() + errors + w.at("in_system_end").get<int64_t>() ==
            w.at("requests").get<int64_t>());
      const double departures = w.at("completed").get<double>() + static_cast<double>(errors);
      const double little = departures / w.at("measured_s").get<double>() *
                            w.at("time_in_system_mean_ms").get<double>() / 1000.0;
      CHECK_WITHIN(w.at("in_system_mean").get<double>(), little, 0.005);
    }
  }
}

// One pod, M/G/1 FCFS: Pollaczek-Khinchine. rate per second, mean work in seconds, speed factor.
double PkMeanMs(double rate, double mean_s, double cv) {
  const double rho = rate * mean_s;
  const double es2 = (1 + cv * cv) * mean_s * mean_s;
  return 1000 * (mean_s + rate * es2 / (2 * (1 - rho)));
}

void CheckMM1(const std::string& file, double rate, double mean_s) {
  const json doc = RunJson(file);
  CheckIdentities(doc);
  const json& w = Workload(Variant(doc, "base"), "svc");
  const double mu = 1 / mean_s;
  CHECK(w.at("requests").get<double>() >= 1.7e4 * 4.5 * std::pow((mu + rate) / (mu - rate), 2));
  CHECK_WITHIN(w.at("latency_ms").at("mean").get<double>(), 1000 / (mu - rate), 0.02);
  CHECK_WITHIN(w.at("latency_ms").at("p99").get<double>(), 1000 * std::log(100.0) / (mu - rate),
               0.03);
  CHECK_WITHIN(w.at("latency_ms").at("p50").get<double>(), 1000 * std::log(2.0) / (mu - rate),
               0.03);
  CHECK_WITHIN(Variant(doc, "base").at("cards").at(0).at("busy").get<double>(), rate / mu, 0.02);
}

TEST_CASE("M/M/1 at rho 0.8: mean, p50, p99 and busy match the closed form") {
  CheckMM1("scenarios/validation/mm1-rho08.yaml", 80, 0.010);
}

TEST_CASE("M/M/1 at rho 0.5: mean, p50, p99 and busy match the closed form") {
  CheckMM1("scenarios/validation/mm1-rho05.yaml", 50, 0.010);
}

void CheckMG1(const std::string& file, double rate, double mean_s, double cv) {
  const json doc = RunJson(file);
  CheckIdentities(doc);
  const json& base = Variant(doc, "base");
  const json& w = Workload(base, "svc");
  CHECK(w.at("requests").get<double>() >= (cv > 1 ? 5e6 : 2e6));
  CHECK_WITHIN(w.at("latency_ms").at("mean").get<double>(), PkMeanMs(rate, mean_s, cv), 0.02);
  CHECK_WITHIN(base.at("cards").at(0).at("busy").get<double>(), rate * mean_s, 0.02);
}

TEST_CASE("M/D/1 (constant work) at rho 0.8 matches Pollaczek-Khinchine") {
  CheckMG1("scenarios/validation/md1-rho08.yaml", 80, 0.010, 0.0);
}

TEST_CASE("M/G/1 with lognormal work, c 0.5, rho 0.8 matches Pollaczek-Khinchine") {
  CheckMG1("scenarios/validation/mg1-lognormal-c05-rho08.yaml", 80, 0.010, 0.5);
}

TEST_CASE("M/G/1 with lognormal work, c 2, rho 0.5 matches Pollaczek-Khinchine") {
  CheckMG1("scenarios/validation/mg1-lognormal-c2-rho05.yaml", 50, 0.010, 2.0);
}

void CheckPS(const std::string& file, double rate, double mean_s, double min_requests) {
  const json doc = RunJson(file);
  CheckIdentities(doc);
  const json& base = Variant(doc, "base");
  const json& w = Workload(base, "svc");
  CHECK(w.at("requests").get<double>() >= min_requests);
  CHECK_WITHIN(w.at("latency_ms").at("mean").get<double>(), 1000 * mean_s / (1 - rate * mean_s),
               0.02);
  CHECK_WITHIN(base.at("cards").at(0).at("busy").get<double>(), rate * mean_s, 0.02);
}

TEST_CASE("M/M/1-PS (unlimited concurrency) at rho 0.8: E[T] = E[S]/(1 - rho)") {
  CheckPS("scenarios/validation/ps-exp-rho08.yaml", 80, 0.010, 2e6);
}

TEST_CASE("M/G/1-PS with lognormal c 2 at rho 0.5 is insensitive: E[T] = E[S]/(1 - rho)") {
  CheckPS("scenarios/validation/ps-lognormal-c2-rho05.yaml", 50, 0.010, 5e6);
}

// A capped pod behaves as an M/M/1 queue on a slower card: speed = fraction of the card.
void CheckCapped(const std::string& file, double rate, double mean_s, double fraction) {
  const json doc = RunJson(file);
  CheckIdentities(doc);
  const json& base = Variant(doc, "base");
  const json& w = Workload(base, "svc");
  const double mu = fraction / mean_s;
  const double busy = rate / mu;
  CHECK(w.at("requests").get<double>() >= 1.7e4 * 4.5 * std::pow((1 + busy) / (1 - busy), 2));
  CHECK_WITHIN(w.at("latency_ms").at("mean").get<double>(), 1000 / (mu - rate), 0.02);
  CHECK_WITHIN(w.at("latency_ms").at("p99").get<double>(), 1000 * std::log(100.0) / (mu - rate),
               0.03);
  const json& card = base.at("cards").at(0);
  CHECK_WITHIN(card.at("busy").get<double>(), busy, 0.02);
  CHECK_WITHIN(card.at("effective").get<double>(), rate * mean_s, 0.02);
  CHECK_WITHIN(card.at("waste").get<double>(), busy - rate * mean_s, 0.03);
}

TEST_CASE(
    "POLICY 3 at 50 % behaves as M/M/1 on a card half as fast; busy = rho*100/p, effective = rho") {
  CheckCapped("scenarios/validation/policy3-p50.yaml", 25, 0.010, 0.5);
}

TEST_CASE("POLICY 0 with max_inst 4 caps a lone pod at a quarter; busy = N*rho, effective = rho") {
  CheckCapped("scenarios/validation/policy0-n4.yaml", 12.5, 0.010, 0.25);
}

TEST_CASE("two pods on a work-conserving card pool like one M/M/1 queue (POLICY 1, 5, 2, 4)") {
  const json doc = RunJson("scenarios/validation/two-pods-shared.yaml", "--all");
  CheckIdentities(doc);
  for (const char* name : {"base", "policy-5", "policy-2", "policy-4"}) {
    INFO("variant " << name);
    const json& v = Variant(doc, name);
    const json& a = Workload(v, "heavy");
    const json& b = Workload(v, "light");
    const double na = a.at("completed").get<double>(), nb = b.at("completed").get<double>();
    CHECK(na + nb >= 1.7e4 * std::pow(1.6 / 0.4, 2));
    const double pooled = (a.at("latency_ms").at("mean").get<double>() * na +
                           b.at("latency_ms").at("mean").get<double>() * nb) /
                          (na + nb);
    CHECK_WITHIN(pooled, 1000.0 / (100 - 60), 0.02);
    CHECK_WITHIN(v.at("cards").at(0).at("busy").get<double>(), 0.6, 0.02);
  }
}

TEST_CASE("two pods under POLICY 0 with N = 2 are two independent M/M/1 queues at half speed") {
  const json doc = RunJson("scenarios/validation/two-pods-policy0.yaml");
  CheckIdentities(doc);
  const json& v = Variant(doc, "base");
  const json& a = Workload(v, "heavy");
  const json& b = Workload(v, "light");
  CHECK_WITHIN(a.at("latency_ms").at("mean").get<double>(), 1000.0 / (50 - 30), 0.02);
  CHECK_WITHIN(b.at("latency_ms").at("mean").get<double>(), 1000.0 / (50 - 10), 0.02);
  CHECK_WITHIN(v.at("cards").at(0).at("busy").get<double>(), 1 - (1 - 0.6) * (1 - 0.2), 0.02);
  const double na = a.at("completed").get<double>(), nb = b.at("completed").get<double>();
  const double pooled = (a.at("latency_ms").at("mean").get<double>() * na +
                         b.at("latency_ms").at("mean").get<double>() * nb) /
                        (na + nb);
  CHECK(pooled >= 2 * 1000.0 / (100 - 40));
}

}  // namespace
}  // namespace knobsim::e2e

#include "sim/replay/discrete.h"

#include <doctest/doctest.h>

#include <vector>

namespace knobsim::replay {
namespace {

TEST_CASE("PyRound rounds the binary value correctly, exact ties to even, like Python") {
  CHECK(PyRound(0.125, 2) == 0.12);  // exact tie: to even
  CHECK(PyRound(0.375, 2) == 0.38);
  CHECK(PyRound(2.675, 2) == 2.67);  // 2.67499999… in binary
  CHECK(PyRound(0.5, 0) == 0);
  CHECK(PyRound(1.5, 0) == 2);
  CHECK(PyRound(2.5, 0) == 2);
  CHECK(PyRound(90.605000000000004, 2) == 90.61);
}

TEST_CASE("PyRepr writes floats as Python's repr, as pandas' to_csv did") {
  CHECK(PyRepr(2.0) == "2.0");
  CHECK(PyRepr(0.25) == "0.25");
  CHECK(PyRepr(1.3) == "1.3");
  CHECK(PyRepr(5.60642857142857) == "5.60642857142857");
  CHECK(PyRepr(7.503874999999999) == "7.503874999999999");
  CHECK(PyRepr(100.0) == "100.0");
  CHECK(PyRepr(0.0001) == "0.0001");
  CHECK(PyRepr(0.00001) == "1e-05");
  CHECK(PyRepr(1e16) == "1e+16");
  CHECK(PyRepr(123456789012345.0) == "123456789012345.0");
  CHECK(PyRepr(-0.5) == "-0.5");
  CHECK(PyRepr(0.0) == "0.0");
}

TEST_CASE("PandasMean sums pairwise in numpy's order (it decides rounding ties)") {
  std::vector<double> v(80, 0.1);
  double seq = 0;
  for (double x : v) seq += x;
  CHECK(PandasMean(v) == doctest::Approx(0.1));
  // The 8-way blocked sum and the plain loop differ in the last bits here.
  CHECK(PandasMean(v) * 80 != seq);
  CHECK(PandasMean(std::vector<double>{1, 2, 3}) == 2);
}

EventMetrics Event(int64_t arrived, int64_t used, double frag = 0, double ratio = 0) {
  return {arrived, used, frag, ratio};
}

TEST_CASE("column x averages the events whose arrived request rounds to x % (§2.6)") {
  // 100 GPUs: 1 % of capacity is 1000 milli.
  const std::vector<EventMetrics> events = {
      Event(400, 400, 10000, 10), Event(600, 600, 20000, 20),  // 0.4 % → 0, 0.6 % → 1
      Event(1400, 1400, 30000, 30),                            // 1.4 % → 1
      Event(3000, 2500, 40000, 40),                            // 3 %: no event rounds to 2
      Event(5000, 4000, 50000, 50)};
  const DiscreteCurves c = Discretize(events, 100);
  CHECK(*c.allo[0] == 0.4);
  CHECK(*c.allo[1] == 1.0);            // mean of 0.6 and 1.4
  CHECK(*c.frag_ratio[1] == 25);       // unrounded mean of 20 and 30
  CHECK(*c.frag[1] == 25);             // 100 · 25000 / 1000 / 100
  CHECK(*c.allo[2] == 1.5);            // nobody at 2: the three events at 1 and 3
  CHECK(*c.allo[4] == 3.25);           // nobody at 4: the events at 3 and 5
  CHECK_FALSE(c.allo[7].has_value());  // nothing within 6..8
}

TEST_CASE("half-way arrived percentages round to even, as Python's round") {
  // 0.5 % → 0 and 2.5 % → 2 (ties to even); 1.5 % → 2.
  const std::vector<EventMetrics> events = {Event(500, 100), Event(1500, 200), Event(2500, 300)};
  const DiscreteCurves c = Discretize(events, 100);
  CHECK(*c.allo[0] == 0.1);
  CHECK(*c.allo[2] == 0.25);
  CHECK(*c.allo[1] == 0.2);  // nobody at 1: the events at 0 and 2
}

}  // namespace
}  // namespace knobsim::replay

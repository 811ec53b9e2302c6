#include "sim/replay/discrete.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace knobsim::replay {

double PyRound(double x, int ndigits) {
  if (ndigits == 0) return std::nearbyint(x);  // default rounding mode: ties to even
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);
  return std::strtod(buf, nullptr);
}

namespace {

// numpy's pairwise_sum for doubles (numpy/core/src/umath/loops_utils.h.src).
double PairwiseSum(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum(a, n2) + PairwiseSum(a + n2, n - n2);
}

}  // namespace

double PandasMean(std::span<const double> values) {
  if (values.empty()) return NAN;
  return PairwiseSum(values.data(), values.size()) / static_cast<double>(values.size());
}

std::string PyRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);  // e.g. "-5.60642857142857e+00"
  std::string out;
  size_t i = 0;
  if (sci[0] == '-') {
    out += '-';
    i = 1;
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (size_t k = i; k < e; ++k) {
    if (sci[k] != '.') digits += sci[k];
  }
  const int exponent = std::atoi(sci.c_str() + e + 1);
  const int decpt = exponent + 1;  // digits before the decimal point
  const int nd = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-decpt), '0');
      out += digits;
    } else if (decpt >= nd) {
      out += digits;
      out.append(static_cast<size_t>(decpt - nd), '0');
      out += ".0";
    } else {
      out.append(digits, 0, static_cast<size_t>(decpt));
      out += '.';
      out.append(digits, static_cast<size_t>(decpt), std::string::npos);
    }
    return out;
  }
  out += digits[0];
  if (nd > 1) {
    out += '.';
    out.append(digits, 1, std::string::npos);
  }
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  out += exp;
  return out;
}

DiscreteCurves Discretize(std::span<const EventMetrics> events, int total_gpus) {
  const double total = static_cast<double>(total_gpus);
  const size_t n = events.size();
  std::vector<double> arrive(n), alloc(n);
  for (size_t i = 0; i < n; ++i) {
    arrive[i] = PyRound(static_cast<double>(events[i].arrived) / total / 10, 0);
    alloc[i] = PyRound(static_cast<double>(events[i].used) / total / 10, 2);
  }
  DiscreteCurves out;
  std::vector<double> ys, fs, rs;
  for (int x = 0; x < kColumns; ++x) {
    ys.clear();
    fs.clear();
    rs.clear();
    const double xd = x;
    for (size_t i = 0; i < n; ++i) {
      if (arrive[i] == xd) {
        ys.push_back(alloc[i]);
        fs.push_back(events[i].frag_amount);
        rs.push_back(events[i].frag_ratio);
      }
    }
    if (ys.empty()) {
      for (size_t i = 0; i < n; ++i) {
        if (arrive[i] >= xd - 1 && arrive[i] <= xd + 1) {
          ys.push_back(alloc[i]);
          fs.push_back(events[i].frag_amount);
          rs.push_back(events[i].frag_ratio);
        }
      }
    }
    if (ys.empty()) continue;
    out.allo[x] = PyRound(PandasMean(ys), 2);
    out.frag[x] = PyRound(100 * PandasMean(fs) / 1000 / total, 2);
    out.frag_ratio[x] = PandasMean(rs);
  }
  return out;
}

}  // namespace knobsim::replay

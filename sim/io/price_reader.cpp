#include "sim/io/price_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "sim/io/yaml_fields.h"
#include "sim/quantity.h"
#include "sim/text.h"

namespace knobsim {
namespace {

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The price file's sections on top of the shared field helpers (sim/io/yaml_fields.h).
class Reader : public YamlFieldReader {
 public:
  explicit Reader(std::string file) : YamlFieldReader(std::move(file)) {}
  PriceBook Read(const YAML::Node& root) const;

 private:
  double AtMost(const Field& f, double hi, std::string_view hint) const;  // in [0, hi]
  bool Bool(const Field& f) const;
  std::string Date(const Field& f) const;
  std::string Currency(const Field& f) const;
  InstancePrice ReadInstance(const Field& f) const;
};

// A bound read as "more than", which a price list says more plainly than a range.
double Reader::AtMost(const Field& f, double hi, std::string_view hint) const {
  const double v = Number(f, 0, INFINITY, false, false, hint);
  if (v > hi) Fail(f, f.node.Scalar() + " is more than " + MessageNumber(hi), std::string(hint));
  return v;
}

bool Reader::Bool(const Field& f) const {
  const std::string text = Scalar(f, "true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  Fail(f, Quote(text) + " is not true or false");
}

// YYYY-MM-DD, a day that exists: the day the prices were read.
std::string Reader::Date(const Field& f) const {
  const std::string text = Scalar(f, "a date");
  auto digits = [&](size_t from, size_t n) {
    int v = 0;
    for (size_t i = from; i < from + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) return -1;
      v = v * 10 + (text[i] - '0');
    }
    return v;
  };
  const bool shape = text.size() == 10 && text[4] == '-' && text[7] == '-';
  const int year = shape ? digits(0, 4) : -1;
  const int month = shape ? digits(5, 2) : -1;
  const int day = shape ? digits(8, 2) : -1;
  if (year < 0 || month < 0 || day < 0) {
    Fail(f, Quote(text) + " is not a date", "write it as YYYY-MM-DD, e.g. 2026-10-01");
  }
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || day > days[month - 1]) {
    Fail(f, Quote(text) + " is not a day of the calendar", "write it as YYYY-MM-DD");
  }
  return text;
}

// ISO 4217: three capital letters. Prices in two currencies cannot be compared, so a book has one.
std::string Reader::Currency(const Field& f) const {
  const std::string text = Scalar(f, "a currency code");
  const bool code = text.size() == 3 && std::all_of(text.begin(), text.end(),
                                                    [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!code) Fail(f, Quote(text) + " is not a currency code", "an ISO 4217 code, e.g. USD or CNY");
  return text;
}

InstancePrice Reader::ReadInstance(const Field& f) const {
  const Section s(*this, f,
                  {"instance_type", "gpu_type", "gpus", "cpu", "memory", "on_demand", "spot",
                   "reserved", "spot_interruptions_per_hour"});
  InstancePrice p;
  p.line = f.line;
  p.instance_type = NonEmptyString(s.Require("instance_type"));
  p.gpu_type = NonEmptyString(s.Require("gpu_type"));
  p.gpus = Int(s.Require("gpus"), 1);
  if (auto v = s.Get("cpu")) p.cpu_milli = Unit(*v, &ParseCpuMilli, "a quantity");
  if (auto v = s.Get("memory")) p.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");
  // No upper bound a real instance could reach: the check is for sign and form.
  constexpr double kMaxPrice = 1e12;
  const std::string_view per_month = "a price per node per month in the file's currency";
  if (auto v = s.Get("on_demand")) p.on_demand = AtMost(*v, kMaxPrice, per_month);
  if (auto v = s.Get("spot")) p.spot = AtMost(*v, kMaxPrice, per_month);
  if (auto v = s.Get("reserved")) p.reserved = AtMost(*v, kMaxPrice, per_month);
  if (!p.on_demand && !p.spot && !p.reserved) {
    Fail(f, "instance " + Quote(p.instance_type) + " has no price",
         "give at least one of on_demand, spot, reserved");
  }
  const std::optional<Field> rate = s.Get("spot_interruptions_per_hour");
  if (p.spot && !rate) {
    Fail(
        s.Require("spot"), "a spot price needs spot_interruptions_per_hour",
        "reclaims per node per hour, e.g. 0.02; the simulation interrupts spot nodes at that rate");
  }
  if (rate) {
    if (!p.spot) {
      Fail(*rate, "spot_interruptions_per_hour without a spot price", "add `spot:` or remove it");
    }
    // The scenario reader's bound for NodePool::spot: above one a minute a pool is mostly down.
    p.spot_interruptions_per_hour = AtMost(*rate, 60, "reclaims per node per hour, 0..60");
  }
  return p;
}

PriceBook Reader::Read(const YAML::Node& root) const {
  const Field top{root, "", LineOf(root, 1)};
  const Section s(*this, top, {"currency", "date", "source", "example", "spot", "instances"});
  PriceBook book;
  book.file = file();
  book.currency = Currency(s.Require("currency"));
  book.date = Date(s.Require("date"));
  book.source = NonEmptyString(s.Require("source"));
  if (auto v = s.Get("example")) book.example = Bool(*v);
  if (auto v = s.Get("spot")) {
    const Section spot(*this, *v, {"replace_after"});
    if (auto r = spot.Get("replace_after")) book.spot_replace_after = Duration(*r);
  }
  const Field list = s.Require("instances");
  const std::vector<Field> items = Items(list);
  if (items.empty()) Fail(list, "no instances", "list at least one instance type");
  for (const Field& f : items) {
    InstancePrice p = ReadInstance(f);
    for (const InstancePrice& other : book.instances) {
      if (other.instance_type == p.instance_type) {
        Fail(Field{f.node, f.path + ".instance_type", f.line},
             "duplicate instance type " + Quote(p.instance_type),
             "first listed on line " + std::to_string(other.line));
      }
    }
    book.instances.push_back(std::move(p));
  }
  return book;
}

}  // namespace

const InstancePrice* PriceBook::Find(std::string_view gpu_type, int gpus) const {
  const InstancePrice* best = nullptr;
  for (const InstancePrice& p : instances) {
    if (p.gpus != gpus || !SameName(p.gpu_type, gpu_type)) continue;
    const bool cheaper = best == nullptr || (p.on_demand && !best->on_demand) ||
                         (p.on_demand && best->on_demand && *p.on_demand < *best->on_demand);
    if (cheaper) best = &p;
  }
  return best;
}

Expected<PriceBook> ReadPriceString(const std::string& yaml, const std::string& file_name) {
  Expected<YAML::Node> root = LoadSingleYamlDocument(yaml, file_name, {"price", "", true});
  if (!root.ok()) return root.error();
  if (root->IsNull()) {
    return InputError{file_name, 0, "", "the file holds no prices",
                      "a price file needs currency, date, source and instances"};
  }
  const Reader reader(file_name);
  return reader.Catch<PriceBook>([&] { return reader.Read(*root); });
}

Expected<PriceBook> ReadPriceFile(const std::string& path) {
  Expected<std::string> text = ReadFileText(path);
  if (!text.ok()) return text.error();
  return ReadPriceString(*text, path);
}

}  // namespace knobsim

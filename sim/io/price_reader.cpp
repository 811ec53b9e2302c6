#include "sim/io/price_reader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <utility>

#include "sim/io/quantity.h"
#include "sim/io/spelling.h"

namespace knobsim {
namespace {

std::string Quote(std::string_view text) {
  std::string quoted(1, '"');
  quoted.append(text);
  quoted.push_back('"');
  return quoted;
}

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// A value in the document with its field path and the 1-based line of its key.
struct Field {
  YAML::Node node;
  std::string path;
  int line = 0;
};

int LineOf(const YAML::Node& node, int fallback) {
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : fallback;
}

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return Quote(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

struct Failure {  // thrown inside this file only; the reader stops at the first error
  InputError error;
};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  PriceBook Read(const YAML::Node& root) const;

 private:
  using Entries = std::vector<std::pair<std::string, Field>>;

  [[noreturn]] void Fail(const Field& f, std::string message, std::string hint = "") const {
    throw Failure{InputError{file_, f.line, f.path, std::move(message), std::move(hint)}};
  }
  // The mapping's entries, each key checked against `known` (unknown and duplicate keys fail).
  Entries Section(const Field& f, std::initializer_list<std::string_view> known) const;
  static const Field* Get(const Entries& entries, std::string_view key);
  const Field& Require(const Field& f, const Entries& entries, std::string_view key) const;

  std::string Scalar(const Field& f, std::string_view what) const;
  std::string NonEmpty(const Field& f) const;
  double Number(const Field& f, double hi, std::string_view hint) const;  // in [0, hi]
  int Count(const Field& f) const;                                        // >= 1
  bool Bool(const Field& f) const;
  std::string Date(const Field& f) const;
  std::string Currency(const Field& f) const;
  template <class T>
  T Unit(const Field& f, Parsed<T> (*parse)(std::string_view), std::string_view what) const {
    Parsed<T> p = parse(Scalar(f, what));
    if (!p.ok()) Fail(f, p.error, p.hint);
    return *p.value;
  }
  InstancePrice ReadInstance(const Field& f) const;

  std::string file_;
};

Reader::Entries Reader::Section(const Field& f,
                                std::initializer_list<std::string_view> known) const {
  if (!f.node.IsMap()) Fail(f, "expected a mapping, found " + Describe(f.node));
  Entries entries;
  for (const auto& kv : f.node) {
    const int line = LineOf(kv.first, f.line);
    if (!kv.first.IsScalar()) {
      Fail(Field{kv.first, f.path, line},
           "keys must be plain strings, found " + Describe(kv.first));
    }
    const std::string key = kv.first.Scalar();
    Field value{kv.second, f.path.empty() ? key : f.path + "." + key, line};
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::vector<std::string> names(known.begin(), known.end());
      Fail(value, "unknown key",
           key == "<<" ? "YAML merge keys (<<) are not supported"
                       : SuggestName(key, names, "known keys:"));
    }
    for (const auto& [seen, unused] : entries) {
      if (seen == key) Fail(value, "duplicate key", "each key may appear once in a mapping");
    }
    entries.emplace_back(key, std::move(value));
  }
  return entries;
}

const Field* Reader::Get(const Entries& entries, std::string_view key) {
  for (const auto& [k, value] : entries) {
    if (k == key) return &value;
  }
  return nullptr;
}

const Field& Reader::Require(const Field& f, const Entries& entries, std::string_view key) const {
  if (const Field* v = Get(entries, key)) return *v;
  Fail(f, "missing required key `" + std::string(key) + "`");
}

std::string Reader::Scalar(const Field& f, std::string_view what) const {
  if (!f.node.IsScalar()) Fail(f, "expected " + std::string(what) + ", found " + Describe(f.node));
  return f.node.Scalar();
}

std::string Reader::NonEmpty(const Field& f) const {
  std::string s = Scalar(f, "a string");
  if (s.empty()) Fail(f, "must not be empty");
  return s;
}

double Reader::Number(const Field& f, double hi, std::string_view hint) const {
  const std::string text = Scalar(f, "a number");
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    Fail(f, Quote(text) + " is not a number", std::string(hint));
  }
  if (v < 0) Fail(f, text + " is negative", std::string(hint));
  if (v > hi) {
    std::ostringstream max;
    max << hi;
    Fail(f, text + " is more than " + max.str(), std::string(hint));
  }
  return v;
}

int Reader::Count(const Field& f) const {
  const std::string text = Scalar(f, "a whole number");
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    Fail(f, Quote(text) + " is not a whole number");
  }
  if (v < 1) Fail(f, text + " is less than 1");
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
  const Entries s = Section(f, {"instance_type", "gpu_type", "gpus", "cpu", "memory", "on_demand",
                                "spot", "reserved", "spot_interruptions_per_hour"});
  InstancePrice p;
  p.line = f.line;
  p.instance_type = NonEmpty(Require(f, s, "instance_type"));
  p.gpu_type = NonEmpty(Require(f, s, "gpu_type"));
  p.gpus = Count(Require(f, s, "gpus"));
  if (const Field* v = Get(s, "cpu")) p.cpu_milli = Unit(*v, &ParseCpuMilli, "a quantity");
  if (const Field* v = Get(s, "memory")) p.memory_mib = Unit(*v, &ParseMemoryMib, "a quantity");
  // No upper bound a real instance could reach: the check is for sign and form.
  constexpr double kMaxPrice = 1e12;
  const std::string_view per_month = "a price per node per month in the file's currency";
  if (const Field* v = Get(s, "on_demand")) p.on_demand = Number(*v, kMaxPrice, per_month);
  if (const Field* v = Get(s, "spot")) p.spot = Number(*v, kMaxPrice, per_month);
  if (const Field* v = Get(s, "reserved")) p.reserved = Number(*v, kMaxPrice, per_month);
  if (!p.on_demand && !p.spot && !p.reserved) {
    Fail(f, "instance " + Quote(p.instance_type) + " has no price",
         "give at least one of on_demand, spot, reserved");
  }
  const Field* rate = Get(s, "spot_interruptions_per_hour");
  if (p.spot && rate == nullptr) {
    Fail(
        *Get(s, "spot"), "a spot price needs spot_interruptions_per_hour",
        "reclaims per node per hour, e.g. 0.02; the simulation interrupts spot nodes at that rate");
  }
  if (rate != nullptr) {
    if (!p.spot) {
      Fail(*rate, "spot_interruptions_per_hour without a spot price", "add `spot:` or remove it");
    }
    // The scenario reader's bound for NodePool::spot: above one a minute a pool is mostly down.
    p.spot_interruptions_per_hour = Number(*rate, 60, "reclaims per node per hour, 0..60");
  }
  return p;
}

PriceBook Reader::Read(const YAML::Node& root) const {
  const Field top{root, "", LineOf(root, 1)};
  const Entries s = Section(top, {"currency", "date", "source", "example", "spot", "instances"});
  PriceBook book;
  book.file = file_;
  book.currency = Currency(Require(top, s, "currency"));
  book.date = Date(Require(top, s, "date"));
  book.source = NonEmpty(Require(top, s, "source"));
  if (const Field* v = Get(s, "example")) book.example = Bool(*v);
  if (const Field* v = Get(s, "spot")) {
    const Entries spot = Section(*v, {"replace_after"});
    if (const Field* r = Get(spot, "replace_after")) {
      book.spot_replace_after = Unit(*r, &ParseDuration, "a duration");
    }
  }
  const Field& list = Require(top, s, "instances");
  if (!list.node.IsSequence()) {
    Fail(list, "expected a list, found " + Describe(list.node),
         list.node.IsMap() ? "start each list item with `- `" : "");
  }
  if (list.node.size() == 0) Fail(list, "no instances", "list at least one instance type");
  for (size_t i = 0; i < list.node.size(); ++i) {
    const YAML::Node item = list.node[i];
    const Field f{item, list.path + "[" + std::to_string(i) + "]", LineOf(item, list.line)};
    InstancePrice p = ReadInstance(f);
    for (const InstancePrice& other : book.instances) {
      if (other.instance_type == p.instance_type) {
        Fail(Field{item, f.path + ".instance_type", f.line},
             "duplicate instance type " + Quote(p.instance_type),
             "first listed on line " + std::to_string(other.line));
      }
    }
    book.instances.push_back(std::move(p));
  }
  return book;
}

// Finds the first document with content past the first, and a document that starts where the
// one before it did: yaml-cpp 0.7 answers an empty document at a stray `,` forever (the scenario
// reader guards against the same), so the parse events are read before any tree is built.
class DocumentCheck : public YAML::EventHandler {
 public:
  struct Stop {};
  std::optional<YAML::Mark> stuck, second;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_ > 0 && mark.pos <= last_pos_) {
      stuck = mark;
      throw Stop{};
    }
    ++documents_;
    last_pos_ = mark.pos;
    start_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { Content(); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Content();
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Content();
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Content();
  }
  void OnMapEnd() override {}

 private:
  void Content() {
    if (documents_ <= 1) return;
    second = start_;
    throw Stop{};
  }
  int documents_ = 0;
  int last_pos_ = 0;
  YAML::Mark start_;
};

InputError SyntaxError(const std::string& file, const YAML::Mark& mark,
                       const std::string& message) {
  return InputError{file, mark.line >= 0 ? mark.line + 1 : 0, "", "invalid YAML: " + message, ""};
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
  DocumentCheck check;
  try {
    std::istringstream in(yaml);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(check)) {
    }
  } catch (const DocumentCheck::Stop&) {
  } catch (const YAML::Exception& e) {
    return SyntaxError(file_name, e.mark, e.msg);
  }
  if (check.stuck) {
    return InputError{file_name, check.stuck->line + 1, "",
                      "invalid YAML: a document cannot start here",
                      "a `,` outside [...] or {...}?"};
  }
  if (check.second) {
    return InputError{file_name, check.second->line + 1, "",
                      "a second YAML document; a price file holds one", ""};
  }
  try {
    const YAML::Node root = YAML::Load(yaml);
    if (root.IsNull()) {
      return InputError{file_name, 0, "", "the file holds no prices",
                        "a price file needs currency, date, source and instances"};
    }
    return Reader(file_name).Read(root);
  } catch (const Failure& f) {
    return f.error;
  } catch (const YAML::Exception& e) {
    return SyntaxError(file_name, e.mark, e.msg);
  }
}

Expected<PriceBook> ReadPriceFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InputError{path, 0, "", std::string("cannot read the file: ") + std::strerror(errno),
                      ""};
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return InputError{path, 0, "", "cannot read the file", ""};
  return ReadPriceString(text.str(), path);
}

}  // namespace knobsim

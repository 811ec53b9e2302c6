#include "sim/io/json_fields.h"

#include <limits>
#include <optional>

namespace knobsim {

namespace {

using Json = nlohmann::ordered_json;

// An integer >= 0, whether parsed from text (unsigned) or built in memory (signed).
bool NonNegative(const Json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<int64_t>() >= 0);
}

}  // namespace

Json HistogramToJson(const LatencyHistogram& h) {
  const LatencyHistogram::Contents c = h.contents();
  Json j;
  j["count"] = c.count;
  j["zero_count"] = c.zero_count;
  j["min"] = ExactDouble(c.min);
  j["max"] = ExactDouble(c.max);
  Json buckets = Json::array();
  for (const auto& [bucket, n] : c.buckets) buckets.push_back(Json::array({bucket, n}));
  j["buckets"] = std::move(buckets);
  return j;
}

FieldReader::FieldReader(const Json& json, std::string path, const std::string& file)
    : json_(json), path_(std::move(path)), file_(file) {
  if (!json_.is_object()) Fail(path_, "is not an object");
}

void FieldReader::Finish() {
  for (size_t i = 0; i < deferred_.size(); ++i) deferred_[i]();
  deferred_.clear();
}

void FieldReader::Fail(const std::string& path, const std::string& message) const {
  InputError e;
  e.file = file_;
  e.path = path;
  e.message = message;
  throw FieldError{std::move(e)};
}

std::string FieldReader::Path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const Json& FieldReader::At(std::string_view key) const {
  const auto it = json_.find(key);
  if (it == json_.end()) Fail(Path(key), "is missing");
  return *it;
}

const Json& FieldReader::ArrayAt(std::string_view key) const {
  const Json& j = At(key);
  if (!j.is_array()) Fail(Path(key), "is not an array");
  return j;
}

int64_t FieldReader::Int(std::string_view key) const {
  const Json& j = At(key);
  if (j.is_number_unsigned()) {
    if (j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Fail(Path(key), "is too large");
    }
    return static_cast<int64_t>(j.get<uint64_t>());
  }
  if (!j.is_number_integer()) Fail(Path(key), "is not an integer");
  return j.get<int64_t>();
}

void FieldReader::Text(std::string_view key, std::string& s, bool) {
  const Json& j = At(key);
  if (!j.is_string()) Fail(Path(key), "is not a string");
  s = j.get<std::string>();
}

void FieldReader::Bool(std::string_view key, bool& b) {
  const Json& j = At(key);
  if (!j.is_boolean()) Fail(Path(key), "is not true or false");
  b = j.get<bool>();
}

void FieldReader::Count(std::string_view key, int64_t& n) {
  n = Int(key);
}

void FieldReader::Count(std::string_view key, int& n) {
  const int64_t v = Int(key);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    Fail(Path(key), "is out of range");
  }
  n = static_cast<int>(v);
}

void FieldReader::Count(std::string_view key, uint64_t& n) {
  const Json& j = At(key);
  if (!NonNegative(j)) Fail(Path(key), "is not a non-negative integer");
  n = j.get<uint64_t>();
}

void FieldReader::Real(std::string_view key, double& x, bool) {
  if (!ReadExactDouble(At(key), &x)) {
    Fail(Path(key), "is not a number (nor \"NaN\", \"Infinity\", \"-Infinity\")");
  }
}

void FieldReader::Time(std::string_view stem, SimTime& t, TimeUnit, bool) {
  t = Int(std::string(stem) + "_ns");
}

void FieldReader::Strings(std::string_view key, std::vector<std::string>& out) {
  const Json& j = ArrayAt(key);
  out.clear();
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) Fail(Path(key) + "[" + std::to_string(i) + "]", "is not a string");
    out.push_back(j[i].get<std::string>());
  }
}

void FieldReader::Indexes(std::string_view key, std::vector<int>& out) {
  const Json& j = ArrayAt(key);
  out.clear();
  for (size_t i = 0; i < j.size(); ++i) {
    const bool ok = j[i].is_number_integer() && j[i].get<int64_t>() >= 0 &&
                    j[i].get<int64_t>() <= std::numeric_limits<int>::max();
    if (!ok) Fail(Path(key) + "[" + std::to_string(i) + "]", "is not a card index");
    out.push_back(static_cast<int>(j[i].get<int64_t>()));
  }
}

void FieldReader::Histogram(std::string_view key, LatencyHistogram& h) {
  FieldReader r(At(key), Path(key), file_);
  LatencyHistogram::Contents c;
  r.Count("count", c.count);
  r.Count("zero_count", c.zero_count);
  r.Real("min", c.min);
  r.Real("max", c.max);
  const Json& buckets = r.ArrayAt("buckets");
  for (size_t i = 0; i < buckets.size(); ++i) {
    const Json& pair = buckets[i];
    const bool ok =
        pair.is_array() && pair.size() == 2 && NonNegative(pair[0]) && NonNegative(pair[1]) &&
        pair[0].get<uint64_t>() < static_cast<uint64_t>(LatencyHistogram::BucketCount());
    if (!ok) {
      Fail(r.Path("buckets") + "[" + std::to_string(i) + "]",
           "is not a [bucket, count] pair with bucket in 0.." +
               std::to_string(LatencyHistogram::BucketCount() - 1));
    }
    c.buckets.emplace_back(static_cast<int>(pair[0].get<uint64_t>()), pair[1].get<uint64_t>());
  }
  Expected<LatencyHistogram> read = LatencyHistogram::FromContents(c);
  if (!read) Fail(Path(key), read.error().message);
  h = std::move(*read);
}

}  // namespace knobsim

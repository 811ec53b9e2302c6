// The writers and the reader that walk a field list (sim/io/result_fields.h), so that each JSON
// schema is written down once and the results document, the shard document and the shard
// reader cannot drift apart.
//
// A field list is `template <class V, class T> void Fields(V& v, T& t)`: one call on the visitor
// per field, in the document's key order. The visitor decides what a call does:
//
// - FieldWriter<DocumentNumbers> writes the documents people read (results, timeline): non-finite
//   doubles and unknown values (`known` false) as null, times in seconds ("<stem>_s") or
//   milliseconds ("<stem>_ms"); MeanCi summaries as their mean, or with `ci` as their 95 %
//   half-width, leaving out every other field (the "ci95" sibling object).
// - FieldWriter<ExactNumbers> writes what knobsim reads back (shards): doubles bit for bit,
//   values whether known or not, times as integer nanoseconds ("<stem>_ns").
// - FieldReader reads what FieldWriter<ExactNumbers> wrote, every value checked, and names a bad
//   one by its field path ("jobs[3].result.workloads[0].histogram.count").
//
// Field kinds: Text, Bool, Count (an integer, or a MeanCi of one), Real (a double, or a MeanCi),
// Time, Strings, Indexes (card indexes), Histogram, Object (a nested struct with its own list),
// Group (a nested object of this struct's fields), Array (a vector of structs), Derived (written
// only, e.g. an id made of two other fields), Replicated (fields only a replicated document has)
// and Partial (fields the document writes only when present; exact writers always write them,
// after the object's other fields: the shard's order).
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/event_queue.h"
#include "sim/input_error.h"
#include "sim/io/json_document.h"
#include "sim/io/json_numbers.h"
#include "sim/latency_histogram.h"
#include "sim/replication_stats.h"

namespace knobsim {

// True when T is one of U… (const or not): the constraint of a field list shared by the reader
// (T) and the writers (const T), or by two structs with the same fields.
template <class T, class... U>
concept FieldsOf = (std::same_as<std::remove_const_t<T>, U> || ...);

// The unit a Time field is written in by the documents people read.
enum class TimeUnit { kSeconds, kMillis };

struct DocumentNumbers {
  static constexpr bool kExact = false;
};
struct ExactNumbers {
  static constexpr bool kExact = true;
};

// A shard's latency histogram: its non-empty buckets as [bucket, count] pairs.
nlohmann::ordered_json HistogramToJson(const LatencyHistogram& histogram);

template <class Numbers>
class FieldWriter {
 public:
  using Json = nlohmann::ordered_json;

  // `replicated`: MeanCi counts are means (doubles), not integers. `ci`: see the header comment.
  explicit FieldWriter(bool replicated = false, bool ci = false)
      : json_(Json::object()), replicated_(replicated), ci_(ci) {}

  // The object written so far, the deferred Partial fields last.
  Json Take() {
    for (size_t i = 0; i < deferred_.size(); ++i) deferred_[i]();
    deferred_.clear();
    return std::move(json_);
  }

  void Text(std::string_view key, const std::string& s, bool known = true) {
    if (!ci_) Put(key, kExact || known ? Json(s) : Json(nullptr));
  }
  void Derived(std::string_view key, const std::string& value) {
    if (!ci_) Put(key, value);
  }
  void Bool(std::string_view key, const bool& b) {
    if (!ci_) Put(key, b);
  }
  template <std::integral I>
  void Count(std::string_view key, const I& n) {
    if (!ci_) Put(key, n);
  }
  void Count(std::string_view key, const MeanCi& m) {
    if (ci_) return Put(key, Num(m.half_width));
    Put(key, replicated_ ? Num(m.mean) : Json(static_cast<int64_t>(std::llround(m.mean))));
  }
  void Real(std::string_view key, const double& x, bool known = true) {
    if (ci_) return;
    if constexpr (kExact) {
      Put(key, ExactDouble(x));
    } else {
      Put(key, known ? Num(x) : Json(nullptr));
    }
  }
  void Real(std::string_view key, const MeanCi& m, bool known = true) {
    Put(key, !known ? Json(nullptr) : Num(ci_ ? m.half_width : m.mean));
  }
  void Time(std::string_view stem, const SimTime& t, TimeUnit unit = TimeUnit::kSeconds,
            bool known = true) {
    if (ci_) return;
    if constexpr (kExact) {
      json_[std::string(stem) + "_ns"] = t;
    } else {
      const bool seconds = unit == TimeUnit::kSeconds;
      const double value = static_cast<double>(t) / (seconds ? kNanosPerSecond : kNanosPerMilli);
      json_[std::string(stem) + (seconds ? "_s" : "_ms")] = known ? Num(value) : Json(nullptr);
    }
  }
  void Strings(std::string_view key, const std::vector<std::string>& v) {
    if (!ci_) Put(key, v);
  }
  void Indexes(std::string_view key, const std::vector<int>& v) {
    if (!ci_) Put(key, v);
  }
  void Histogram(std::string_view key, const LatencyHistogram& h) {
    if (!ci_) Put(key, HistogramToJson(h));
  }

  // A nested struct, written by its own field list (extra arguments go to that list). With
  // `ci`, an object without a MeanCi field is left out.
  template <class T, class... Extra>
  void Object(std::string_view key, const T& t, Extra... extra) {
    FieldWriter child(replicated_, ci_);
    Fields(child, t, extra...);
    PutChild(key, child.Take());
  }
  template <class F>
  void Group(std::string_view key, F fields) {
    FieldWriter child(replicated_, ci_);
    fields(child);
    PutChild(key, child.Take());
  }
  template <class T>
  void Array(std::string_view key, const std::vector<T>& items) {
    if (ci_) return;
    Json array = Json::array();
    for (const T& item : items) {
      FieldWriter child(replicated_, ci_);
      Fields(child, item);
      array.push_back(child.Take());
    }
    Put(key, std::move(array));
  }
  template <class F>
  void Replicated(F fields) {
    if (replicated_ && !ci_) fields();
  }
  template <class F>
  void Partial(bool present, F fields) {
    if constexpr (kExact) {
      deferred_.push_back(fields);
    } else if (present) {
      fields();
    }
  }

 private:
  static constexpr bool kExact = Numbers::kExact;
  static Json Num(double x) { return json_numbers::Num(x); }

  void Put(std::string_view key, Json value) { json_[std::string(key)] = std::move(value); }
  void PutChild(std::string_view key, Json child) {
    if (ci_ && child.empty()) return;
    Put(key, std::move(child));
  }

  Json json_;
  bool replicated_;
  bool ci_;
  std::vector<std::function<void()>> deferred_;
};

// `t` as an object by its field list.
template <class Numbers, class T>
nlohmann::ordered_json WriteFields(const T& t) {
  FieldWriter<Numbers> writer;
  Fields(writer, t);
  return writer.Take();
}

// A replicated summary (MeanCi fields) as an object: with several replications its means, then
// the sibling "ci95" object of half-widths; with one the values themselves (counts integers).
template <class T>
nlohmann::ordered_json WriteSummaryFields(const T& t, bool replicated) {
  FieldWriter<DocumentNumbers> values(replicated);
  Fields(values, t);
  nlohmann::ordered_json j = values.Take();
  if (replicated) {
    FieldWriter<DocumentNumbers> half_widths(replicated, /*ci=*/true);
    Fields(half_widths, t);
    nlohmann::ordered_json ci = half_widths.Take();
    if (!ci.empty()) j["ci95"] = std::move(ci);
  }
  return j;
}

// Why FieldReader stopped: unwinds to ReadFields, which returns it.
struct FieldError {
  InputError error;
};

class FieldReader {
 public:
  using Json = nlohmann::ordered_json;

  // `path`: the field path of `json` in its document ("" at the top); `file` names it in errors.
  FieldReader(const Json& json, std::string path, const std::string& file);

  // Runs the deferred Partial fields; call once the list is done.
  void Finish();

  void Text(std::string_view key, std::string& s, bool known = true);
  void Derived(std::string_view, const std::string&) {}
  void Bool(std::string_view key, bool& b);
  void Count(std::string_view key, int64_t& n);
  void Count(std::string_view key, int& n);
  void Count(std::string_view key, uint64_t& n);
  void Real(std::string_view key, double& x, bool known = true);
  void Time(std::string_view stem, SimTime& t, TimeUnit unit = TimeUnit::kSeconds,
            bool known = true);
  void Strings(std::string_view key, std::vector<std::string>& v);
  void Indexes(std::string_view key, std::vector<int>& v);
  void Histogram(std::string_view key, LatencyHistogram& h);

  template <class T, class... Extra>
  void Object(std::string_view key, T& t, Extra... extra) {
    FieldReader child(At(key), Path(key), file_);
    Fields(child, t, extra...);
    child.Finish();
  }
  template <class F>
  void Group(std::string_view key, F fields) {
    FieldReader child(At(key), Path(key), file_);
    fields(child);
    child.Finish();
  }
  template <class T>
  void Array(std::string_view key, std::vector<T>& items) {
    const Json& j = ArrayAt(key);
    items.clear();
    for (size_t i = 0; i < j.size(); ++i) {
      FieldReader child(j[i], Path(key) + "[" + std::to_string(i) + "]", file_);
      T item{};
      Fields(child, item);
      child.Finish();
      items.push_back(std::move(item));
    }
  }
  template <class F>
  void Replicated(F) {}
  template <class F>
  void Partial(bool, F fields) {
    deferred_.push_back(fields);
  }

 private:
  [[noreturn]] void Fail(const std::string& path, const std::string& message) const;
  std::string Path(std::string_view key) const;
  const Json& At(std::string_view key) const;
  const Json& ArrayAt(std::string_view key) const;
  int64_t Int(std::string_view key) const;

  const Json& json_;
  std::string path_;
  const std::string& file_;
  std::vector<std::function<void()>> deferred_;
};

// Checks an object that FieldWriter<DocumentNumbers> wrote (a results document read back by
// diff or report) against the same field list: every field there, of its type — text a string
// (null: unknown), counts integers >= 0 (a replicated mean: a number >= 0 or null), reals and
// times numbers or null, booleans true or false, arrays of objects checked element by element.
// Keys the list does not name are allowed (a newer minor version may add some). Values are not
// kept: the check walks dummy structs. The first bad field throws JsonFieldError.
class FieldChecker {
 public:
  FieldChecker(JsonField field, bool replicated) : field_(field), replicated_(replicated) {
    field_.Object();
  }

  void Text(std::string_view key, const std::string&, bool = true) {
    if (auto f = Member(key)) f->StringOrNull();
  }
  void Derived(std::string_view key, const std::string&) {
    if (auto f = field_.Find(key)) f->String();
  }
  void Bool(std::string_view key, const bool&) {
    if (auto f = Member(key)) f->Bool();
  }
  template <std::integral I>
  void Count(std::string_view key, const I&) {
    if (auto f = Member(key)) {
      if constexpr (std::is_unsigned_v<I>) {
        f->Unsigned();
      } else {
        f->Integer(0, std::numeric_limits<I>::max());
      }
    }
  }
  void Count(std::string_view key, const MeanCi&) {
    if (auto f = Member(key)) NonNegative(*f);
  }
  void Real(std::string_view key, const double&, bool = true) {
    if (auto f = Member(key)) f->NumberOrNull();
  }
  void Real(std::string_view key, const MeanCi&, bool = true) {
    if (auto f = Member(key)) f->NumberOrNull();
  }
  void Time(std::string_view stem, const SimTime&, TimeUnit unit = TimeUnit::kSeconds,
            bool = true) {
    const std::string key = std::string(stem) + (unit == TimeUnit::kSeconds ? "_s" : "_ms");
    if (auto f = Member(key)) f->NumberOrNull();
  }
  void Strings(std::string_view key, const std::vector<std::string>&) {
    if (auto f = Member(key))
      for (const JsonField& item : f->Items()) item.String();
  }
  void Indexes(std::string_view key, const std::vector<int>&) {
    if (auto f = Member(key))
      for (const JsonField& item : f->Items()) item.Integer(0, std::numeric_limits<int>::max());
  }
  void Histogram(std::string_view key, const LatencyHistogram&) {
    if (auto f = Member(key)) f->Object();
  }
  template <class T, class... Extra>
  void Object(std::string_view key, const T& t, Extra... extra) {
    if (auto f = Member(key)) {
      FieldChecker child(*f, replicated_);
      Fields(child, t, extra...);
    }
  }
  template <class F>
  void Group(std::string_view key, F fields) {
    if (auto f = Member(key)) {
      FieldChecker child(*f, replicated_);
      fields(child);
    }
  }
  template <class T>
  void Array(std::string_view key, const std::vector<T>&) {
    if (auto f = Member(key)) {
      for (const JsonField& item : f->Items()) {
        FieldChecker child(item, replicated_);
        const T dummy{};
        Fields(child, dummy);
      }
    }
  }
  template <class F>
  void Replicated(F fields) {
    if (replicated_) fields();
  }
  // Fields a document writes only when present (FieldWriter's Partial): checked when there.
  template <class F>
  void Partial(bool, F fields) {
    const bool was = optional_;
    optional_ = true;
    fields();
    optional_ = was;
  }

  // A number >= 0, or null (a mean over replications that has none).
  static void NonNegative(const JsonField& f) {
    if (const std::optional<double> x = f.NumberOrNull(); x && *x < 0)
      f.Fail(f.Shown() + " is negative");
  }

 private:
  std::optional<JsonField> Member(std::string_view key) const {
    if (optional_) return field_.Find(key);
    return field_.At(key);
  }

  JsonField field_;
  bool replicated_;
  bool optional_ = false;
};

// Checks `field` as FieldWriter<DocumentNumbers> writes a `T` (FieldChecker above).
template <class T>
void CheckFields(const JsonField& field, bool replicated) {
  FieldChecker checker(field, replicated);
  const T dummy{};
  Fields(checker, dummy);
}

// `T` read from `json` by its field list; `file` and `path` name the place in an error.
template <class T>
Expected<T> ReadFields(const nlohmann::ordered_json& json, const std::string& file,
                       const std::string& path) {
  try {
    FieldReader reader(json, path, file);
    T t{};
    Fields(reader, t);
    reader.Finish();
    return t;
  } catch (const FieldError& bad) {
    return bad.error;
  }
}

}  // namespace knobsim

#include "sim/io/yaml_stream.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

#include <fmt/format.h>

namespace knobsim {
namespace {

// Why the cut stopped: its own error, or the one a unit's reader returned.
struct YamlStreamStop {
  InputError error;
};

// `---` at the start of a line, then a blank or the end of the line.
bool IsDocumentStart(std::string_view line) {
  return line.substr(0, 3) == "---" &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}
// A block sequence entry at column 0: `-` then a blank or the end of the line.
bool IsItemStart(std::string_view line) {
  return !line.empty() && line[0] == '-' && (line.size() == 1 || line[1] == ' ' || line[1] == '\r');
}
// A line that belongs to whatever is open above it: empty, a comment, or indented.
bool Continues(std::string_view line) {
  return line.empty() || line == "\r" || line[0] == ' ' || line[0] == '#';
}
// `items:` as a top-level key, its value on the lines below.
bool IsItemsKey(std::string_view line) {
  return line.substr(0, 6) == "items:" &&
         line.find_first_not_of(" \r", 6) == std::string_view::npos;
}

// Cuts the lines of a YAML file into units (yaml_stream.h).
class YamlCutter {
 public:
  YamlCutter(const std::string& file, size_t max_unit,
             const std::function<Status(const YamlUnit&)>& on_unit)
      : file_(file), max_unit_(max_unit), on_unit_(on_unit) {}

  // The next line of the file, without its line feed (`feed`: whether one followed it).
  void Line(std::string_view line, bool feed) {
    ++line_;
    std::string_view bare = line;
    if (line_ == 1 && bare.substr(0, 3) == "\xEF\xBB\xBF") bare.remove_prefix(3);
    const std::string_view end = feed ? "\n" : "";
    if (IsDocumentStart(bare)) {
      EndDocument();
      envelope_line_ = line_;
    } else if (in_items_) {
      if (IsItemStart(bare)) {
        EndItem();
        in_item_ = true;
        item_line_ = line_;
        Append(item_, " ", item_line_);  // the `-`: the item's mapping keeps its columns
        Append(item_, line.substr(1), item_line_);
        Append(item_, end, item_line_);
        envelope_ += end;
        return;
      }
      if (Continues(bare) && in_item_) {
        Append(item_, line, item_line_);
        Append(item_, end, item_line_);
        envelope_ += end;
        return;
      }
      if (!Continues(bare)) {
        EndItem();
        in_items_ = false;
      } else if (const size_t at = bare.find_first_not_of(" \r");
                 at != std::string_view::npos && bare[at] != '#') {
        Fail(line_,
             "the items of a streamed YAML file must start at column 0, as kubectl writes them",
             "write them as `- ` under `items:` (kubectl get -o yaml), or split the file");
      }
    }
    if (!in_items_ && IsItemsKey(bare)) {
      if (has_items_) {
        Fail(line_, "a second top-level `items` in one document of a streamed file",
             "split the file, or separate the lists with ---");
      }
      has_items_ = in_items_ = true;
      Append(envelope_, line.substr(0, line.size() - bare.size()), envelope_line_);  // a BOM
      Append(envelope_, line.back() == '\r' ? "items: []\r" : "items: []", envelope_line_);
      Append(envelope_, end, envelope_line_);
      return;
    }
    Append(envelope_, line, envelope_line_);
    Append(envelope_, end, envelope_line_);
  }

  void Finish() { EndDocument(); }

 private:
  [[noreturn]] void Fail(int line, std::string message, std::string hint) const {
    throw YamlStreamStop{InputError{file_, line, "", std::move(message), std::move(hint)}};
  }
  void Append(std::string& unit, std::string_view text, int unit_line) const {
    unit.append(text);
    if (unit.size() > max_unit_) {
      Fail(unit_line,
           fmt::format("an object larger than the input limit of {} MiB", max_unit_ >> 20),
           "split the export by namespace or kind");
    }
  }
  void Emit(const std::string& text, int line, long item, bool envelope) {
    if (Status s = on_unit_(YamlUnit{text, line, item, envelope}); !s)
      throw YamlStreamStop{s.error()};
  }
  void EndItem() {
    if (!in_item_) return;
    Emit(item_, item_line_, item_index_++, false);
    item_.clear();
    in_item_ = false;
  }
  void EndDocument() {
    EndItem();
    if (has_items_ || envelope_.find_first_not_of(" \t\r\n") != std::string::npos) {
      Emit(envelope_, envelope_line_, -1, has_items_);
    }
    envelope_.clear();
    in_items_ = has_items_ = false;
    item_index_ = 0;
  }

  const std::string& file_;
  size_t max_unit_;
  const std::function<Status(const YamlUnit&)>& on_unit_;
  int line_ = 0;
  // The document: its text but for its items, from its first line.
  std::string envelope_;
  int envelope_line_ = 1;
  bool has_items_ = false;  // it has a top-level `items:`
  bool in_items_ = false;   // the lines now read are its items
  // The item being read.
  std::string item_;
  int item_line_ = 0;
  long item_index_ = 0;
  bool in_item_ = false;
};

}  // namespace

Status StreamYamlUnits(const std::string& path, const std::string& file, size_t max_unit_bytes,
                       const std::function<Status(const YamlUnit&)>& on_unit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InputError{file, 0, "", std::string("cannot read the file: ") + std::strerror(errno),
                      ""};
  }
  YamlCutter cutter(file, max_unit_bytes, on_unit);
  try {
    std::string line;
    while (std::getline(in, line)) cutter.Line(line, !in.eof());
    if (in.bad()) return InputError{file, 0, "", "cannot read the file: a read failed", ""};
    cutter.Finish();
  } catch (const YamlStreamStop& stop) {
    return stop.error;
  }
  return Status::Ok();
}

}  // namespace knobsim

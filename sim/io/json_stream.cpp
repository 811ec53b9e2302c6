#include "sim/io/json_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace knobsim {
namespace {

constexpr size_t kChunkBytes = size_t{4} << 20;

// Why the cut stopped: its own error, or the one a unit's reader returned.
struct StreamStop {
  InputError error;
};

// Cuts the bytes of a JSON file into units (json_stream.h), fed a chunk at a time.
class UnitCutter {
 public:
  UnitCutter(const std::string& file, size_t max_unit,
             const std::function<Status(const JsonUnit&)>& on_unit)
      : file_(file), max_unit_(max_unit), on_unit_(on_unit) {}

  void Feed(std::string_view chunk) {
    size_t i = 0;
    if (at_start_) {
      at_start_ = false;
      if (chunk.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
    }
    for (; i < chunk.size(); ++i) Byte(chunk[i]);
  }

  void Finish() {
    if (mode_ != Mode::kBetweenDocuments || in_string_)
      Fail("invalid JSON: the text ends inside a value", "the file may have been cut short");
  }

 private:
  enum class Mode { kBetweenDocuments, kDocument, kItems };
  enum class Expect { kValueOrEnd, kValue, kCommaOrEnd };

  [[noreturn]] void Fail(std::string message, std::string hint = "") const {
    throw StreamStop{InputError{file_, line_, "", std::move(message), std::move(hint)}};
  }
  void Emit(const JsonUnit& unit) {
    if (Status s = on_unit_(unit); !s) throw StreamStop{s.error()};
  }
  void Grow(const std::string& text) const {
    if (text.size() > max_unit_) {
      Fail(fmt::format("an object larger than the input limit of {} MiB", max_unit_ >> 20),
           "split the export by namespace or kind");
    }
  }
  static bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  static std::string Shown(char c) {
    return c >= 0x21 && c < 0x7f ? fmt::format("`{}`", c) : std::string("an unexpected byte");
  }

  void Byte(char c) {
    if (c == '\n') ++line_;
    switch (mode_) {
      case Mode::kBetweenDocuments:
        if (Space(c)) return;
        if (c != '{' && c != '[')
          Fail("invalid JSON: expected `{` or `[` to start a document, found " + Shown(c));
        mode_ = Mode::kDocument;
        unit_.clear();
        unit_line_ = line_;
        had_items_ = false;
        key_.clear();
        DocumentByte(c);
        return;
      case Mode::kDocument:
        DocumentByte(c);
        return;
      case Mode::kItems:
        ItemsByte(c);
        return;
    }
  }

  // A string's bytes: true while inside it (the closing quote included).
  bool StringByte(char c) {
    if (!in_string_) return false;
    if (escape_) {
      escape_ = false;
    } else if (c == '\\') {
      escape_ = true;
    } else if (c == '"') {
      in_string_ = false;
    }
    return true;
  }

  void Open(char c) {
    if (stack_.size() >= 512)
      Fail("invalid JSON: nested too deep", "no Kubernetes object nests this far");
    stack_.push_back(c);
  }
  void Close(char c) {
    if (stack_.empty() || (stack_.back() == '{') != (c == '}'))
      Fail("invalid JSON: " + Shown(c) + " does not close the bracket before it");
    stack_.pop_back();
  }

  // Inside a top-level document, outside its items: the bytes go to the unit; the keys at the
  // first level are watched for `items`.
  void DocumentByte(char c) {
    unit_.push_back(c);
    Grow(unit_);
    const bool level_one = stack_.size() == 1;
    if (StringByte(c)) {
      if (level_one && in_string_) string_.push_back(c);
      return;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        string_.clear();
        break;
      case ':':
        if (level_one) key_ = string_;
        break;
      case ',':
        if (level_one) key_.clear();
        break;
      case '{':
      case '[':
        if (level_one && c == '[' && stack_.front() == '{' && key_ == "items") {
          Open(c);
          mode_ = Mode::kItems;
          expect_ = Expect::kValueOrEnd;
          item_ = 0;
          return;
        }
        Open(c);
        break;
      case '}':
      case ']':
        Close(c);
        if (stack_.empty()) {
          Emit(JsonUnit{unit_, unit_line_, -1, had_items_});
          mode_ = Mode::kBetweenDocuments;
        }
        break;
      default:
        break;
    }
  }

  // Inside a top-level `items` array: each element is cut out as a unit of its own; the
  // envelope keeps only the line breaks.
  void ItemsByte(char c) {
    if (c == '\n') unit_.push_back('\n');
    if (in_item_) {
      ItemByte(c);
      return;
    }
    if (Space(c)) return;
    switch (expect_) {
      case Expect::kCommaOrEnd:
        if (c == ',') {
          expect_ = Expect::kValue;
        } else if (c == ']') {
          EndItems();
        } else {
          Fail("invalid JSON: expected `,` or `]` after an item, found " + Shown(c));
        }
        return;
      case Expect::kValueOrEnd:
        if (c == ']') return EndItems();
        break;
      case Expect::kValue:
        if (c == ']') Fail("invalid JSON: expected a value after `,`, found `]`");
        break;
    }
    in_item_ = true;
    text_.assign(1, c);
    text_line_ = line_;
    scalar_item_ = c != '{' && c != '[';
    if (!scalar_item_) Open(c);
    if (c == '"') in_string_ = true;
  }

  void ItemByte(char c) {
    text_.push_back(c);
    Grow(text_);
    if (StringByte(c)) return;
    const bool items_level = stack_.size() == 2;
    switch (c) {
      case '"':
        in_string_ = true;
        break;
      case '{':
      case '[':
        Open(c);
        break;
      case ',':
        if (items_level) {  // after a scalar item
          text_.pop_back();
          EndItem(Expect::kValue);
        }
        break;
      case '}':
      case ']':
        if (items_level) {  // the array closes after a scalar item
          text_.pop_back();
          EndItem(Expect::kCommaOrEnd);
          Close(c);
          EndItemsClosed();
          return;
        }
        Close(c);
        if (stack_.size() == 2) EndItem(Expect::kCommaOrEnd);
        break;
      default:
        break;
    }
  }

  void EndItem(Expect next) {
    while (!text_.empty() && Space(text_.back())) text_.pop_back();
    Emit(JsonUnit{text_, text_line_, item_++, false});
    in_item_ = false;
    expect_ = next;
  }
  void EndItems() {
    Close(']');
    EndItemsClosed();
  }
  void EndItemsClosed() {
    unit_.push_back(']');
    mode_ = Mode::kDocument;
    had_items_ = true;
    key_.clear();
  }

  const std::string& file_;
  size_t max_unit_;
  const std::function<Status(const JsonUnit&)>& on_unit_;
  bool at_start_ = true;
  Mode mode_ = Mode::kBetweenDocuments;
  int line_ = 1;
  std::vector<char> stack_;  // the open brackets
  bool in_string_ = false, escape_ = false;
  std::string unit_;  // the document (or envelope) being read
  int unit_line_ = 1;
  bool had_items_ = false;
  std::string string_;  // the last string at the first level, and the key it made
  std::string key_;
  // The items array.
  Expect expect_ = Expect::kValueOrEnd;
  long item_ = 0;
  bool in_item_ = false, scalar_item_ = false;
  std::string text_;  // the item being read
  int text_line_ = 1;
};

}  // namespace

Status StreamJsonUnits(const std::string& path, const std::string& file, size_t max_unit_bytes,
                       const std::function<Status(const JsonUnit&)>& on_unit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return InputError{file, 0, "", std::string("cannot read the file: ") + std::strerror(errno),
                      ""};
  std::vector<char> chunk(kChunkBytes);
  UnitCutter cutter(file, max_unit_bytes, on_unit);
  try {
    while (true) {
      const ssize_t n = ::read(fd, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const std::string reason = std::strerror(errno);
        ::close(fd);
        return InputError{file, 0, "", "cannot read the file: " + reason, ""};
      }
      if (n == 0) break;
      cutter.Feed(std::string_view(chunk.data(), static_cast<size_t>(n)));
    }
    cutter.Finish();
  } catch (const StreamStop& stop) {
    ::close(fd);
    return stop.error;
  }
  ::close(fd);
  return Status::Ok();
}

}  // namespace knobsim

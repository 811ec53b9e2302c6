#include "sim/text.h"

#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>

#include <cstdint>
#include <new>

namespace knobsim {

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  return fmt::to_string(fmt::join(parts, separator));
}

// Appends rather than concatenates: GCC 12 warns falsely (-Wrestrict, PR 105651) on
// `"\"" + std::string(text)` at -O3.
std::string_view TrimSpace(std::string_view text) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string Quote(std::string_view text) {
  std::string quoted(1, '"');
  if (text.size() <= kMaxQuotedBytes) {
    quoted.append(text);
    quoted.push_back('"');
    return quoted;
  }
  // Cut at a UTF-8 character boundary: never half a character in a message.
  size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  quoted.append(text.substr(0, cut));
  quoted.append("\"... (");
  quoted.append(std::to_string(text.size()));
  quoted.append(" bytes)");
  return quoted;
}

std::string ShortestNumber(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : fmt::format("{}", x);
}

std::string Percent(double fraction, int decimals, std::string_view sign) {
  return fmt::format("{:.{}f}{}", 100 * fraction, decimals, sign);
}

std::string MarkdownText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '@') {
      out += "@\xE2\x81\xA0";  // U+2060 WORD JOINER
    } else if (std::string_view("\\`*_[]|~#").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string YamlCommentText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    const std::string_view rest = text.substr(i);
    if (text[i] == '\n') {
      out += "\\n";
    } else if (text[i] == '\r') {
      out += "\\r";
    } else if ((u < 0x20 && text[i] != '\t') || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else if (rest.starts_with("\xC2\x85")) {
      out += "\\u0085";
      ++i;
    } else if (rest.starts_with("\xE2\x80\xA8") || rest.starts_with("\xE2\x80\xA9")) {
      out += rest[2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string DurationText(double seconds) {
  if (seconds < 1) return fmt::format("{:.0f} ms", seconds * 1e3);
  const struct {
    double seconds;
    const char* name;
  } units[] = {{86400, "d"}, {3600, "h"}, {60, "min"}, {1, "s"}};
  for (const auto& unit : units) {
    if (seconds < unit.seconds) continue;
    std::string number = fmt::format("{:.1f}", seconds / unit.seconds);
    if (number.ends_with(".0")) number.resize(number.size() - 2);
    return number + " " + unit.name;
  }
  return "";  // not reached: seconds >= 1 here
}

std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return (values[n / 2 - 1] + values[n / 2]) / 2;
}

namespace {

InputError ReadFailure(const std::string& name, std::string message) {
  return InputError{name, 0, "", std::move(message), ""};
}

std::string SizeText(size_t bytes) {
  if (bytes % (size_t{1} << 30) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes % (size_t{1} << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

InputError TooLarge(const std::string& name, size_t limit) {
  return ReadFailure(name, "is larger than the input limit of " + SizeText(limit) +
                               " per file (docs/limits.md); split it or give a smaller window");
}

// Reads `fd` to its end with read(2): a regular file, a pipe (`<(...)`, stdin), a device. The
// limit is checked before each chunk is kept, so /dev/zero ends in the limit's message, not in
// std::bad_alloc; a failed read is an error, never a text cut short.
Expected<std::string> ReadDescriptor(int fd, const std::string& name, size_t limit) {
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return ReadFailure(name, std::string("cannot read the file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return ReadFailure(name, "is a directory, not a file");
  std::string text;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > limit) return TooLarge(name, limit);
    text.reserve(static_cast<size_t>(st.st_size));
  }
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadFailure(name, std::string("cannot read the file: ") + std::strerror(errno));
    }
    if (text.size() + static_cast<size_t>(n) > limit) return TooLarge(name, limit);
    try {
      text.append(chunk, static_cast<size_t>(n));
    } catch (const std::bad_alloc&) {
      return ReadFailure(name, "not enough memory to read the file");
    }
  }
  return text;
}

}  // namespace

Expected<std::string> ReadFileText(const std::string& path, size_t limit) {
  if (path == "-") return ReadDescriptor(STDIN_FILENO, "<stdin>", limit);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return ReadFailure(path, std::string("cannot read the file: ") + std::strerror(errno));
  Expected<std::string> text = ReadDescriptor(fd, path, limit);
  ::close(fd);
  return text;
}

InputError ReadErrorAs(InputError error, std::string_view what) {
  constexpr std::string_view kTheirs = "cannot read the file";
  if (error.message.rfind(kTheirs, 0) == 0) {
    error.message = "cannot read " + std::string(what) + error.message.substr(kTheirs.size());
  }
  return error;
}

std::string_view WithoutUtf8Bom(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  return text;
}

std::string Rfc3339(double unix_seconds) {
  const auto t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string FirstNames(const std::vector<std::string>& names) {
  const size_t shown = std::min<size_t>(names.size(), 5);
  return Join(std::vector<std::string>(names.begin(), names.begin() + static_cast<long>(shown)),
              ", ") +
         (names.size() > shown ? ", ..." : "");
}

}  // namespace knobsim

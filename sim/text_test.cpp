#include "sim/text.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace knobsim {
namespace {

TEST_CASE("Rfc3339 writes UTC whole seconds, fractions toward the earlier second") {
  CHECK(Rfc3339(1717200000) == "2024-06-01T00:00:00Z");
  CHECK(Rfc3339(1717200000.9) == "2024-06-01T00:00:00Z");
  CHECK(Rfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(Rfc3339(951782400) == "2000-02-29T00:00:00Z");
}

TEST_CASE("Join puts the separator between the parts only") {
  CHECK(Join({}) == "");
  CHECK(Join({"a"}) == "a");
  CHECK(Join({"a", "b", "c"}) == "a, b, c");
  CHECK(Join({"x", "", "y"}, ",") == "x,,y");
  CHECK(Join({"cpu", "memory"}, " and ") == "cpu and memory");
}

TEST_CASE("Quote wraps the text in double quotes, nothing escaped") {
  CHECK(Quote("4GB") == "\"4GB\"");
  CHECK(Quote("") == "\"\"");
  CHECK(Quote("a\"b") == "\"a\"b\"");
}

TEST_CASE("Percent rounds as printf does and writes the sign it is given") {
  CHECK(Percent(0.125) == "12.5%");
  CHECK(Percent(0.125, 0) == "12%");  // a tie rounds to even, as %.0f does
  CHECK(Percent(0.5, 0, " %") == "50 %");
  CHECK(Percent(1.0 / 3, 2, " %") == "33.33 %");
  CHECK(Percent(-0.004) == "-0.4%");
}

TEST_CASE("Median is the middle value, or the mean of the middle two") {
  CHECK(*Median({3, 1, 2}) == 2);
  CHECK(*Median({4, 1, 3, 2}) == 2.5);
  CHECK(*Median({91.80, 91.81, 91.79, 91.83}) == doctest::Approx(91.805));  // unrounded
  CHECK_FALSE(Median({}).has_value());
}

TEST_CASE("ReadFileText returns the bytes, or an error naming the path as given") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string path =
      (dir / ("knobsim_text_test." + std::to_string(::getpid()) + ".bin")).string();
  const std::string bytes("a\0b\r\nc", 6);
  std::ofstream(path, std::ios::binary) << bytes;
  const Expected<std::string> read = ReadFileText(path);
  REQUIRE(read.ok());
  CHECK(*read == bytes);
  std::ofstream(path, std::ios::binary | std::ios::trunc);  // now empty
  CHECK(*ReadFileText(path) == "");
  std::remove(path.c_str());

  const Expected<std::string> missing = ReadFileText("/nonexistent/f.yaml");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().ToString() ==
        "/nonexistent/f.yaml: cannot read the file: No such file or directory");

  // A directory is named as one, not read as an empty text.
  const Expected<std::string> directory = ReadFileText(dir.string());
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().file == dir.string());
  CHECK(directory.error().message == "is a directory, not a file");
}

TEST_CASE("ReadFileText: an input over the limit is refused naming the file and the limit") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("knobsim_text_limit." + std::to_string(::getpid())))
                               .string();
  std::ofstream(path, std::ios::binary) << std::string(4096, 'x');
  CHECK(ReadFileText(path, 4096).ok());
  const Expected<std::string> over = ReadFileText(path, 4095);
  REQUIRE_FALSE(over.ok());
  CHECK(
      over.error().ToString().starts_with(path + ": is larger than the input limit of 4095 bytes"));
  std::remove(path.c_str());
  // A device with no end: the limit stops the read as it goes, no std::bad_alloc.
  const Expected<std::string> zero = ReadFileText("/dev/zero", size_t{1} << 20);
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().ToString() ==
        "/dev/zero: is larger than the input limit of 1 MiB per file (docs/limits.md); split it or "
        "give a smaller window");
}

TEST_CASE("ReadFileText reads a pipe as it reads a file (no seek)") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  REQUIRE(::write(fds[1], "through a pipe", 14) == 14);
  ::close(fds[1]);
  const Expected<std::string> read = ReadFileText("/dev/fd/" + std::to_string(fds[0]));
  ::close(fds[0]);
  REQUIRE(read.ok());
  CHECK(*read == "through a pipe");
}

TEST_CASE("Quote never echoes more than 200 bytes of an input") {
  CHECK(Quote(std::string(200, 'a')) == "\"" + std::string(200, 'a') + "\"");
  CHECK(Quote(std::string(10'000'000, 'b')) ==
        "\"" + std::string(200, 'b') + "\"... (10000000 bytes)");
  // Cut at a character boundary: 199 ASCII bytes then "é" (2 bytes) keeps 199.
  const std::string accented = std::string(199, 'c') + "\xC3\xA9" + std::string(50, 'd');
  CHECK(Quote(accented) == "\"" + std::string(199, 'c') + "\"... (251 bytes)");
}

TEST_CASE("WithoutUtf8Bom drops a leading byte order mark only") {
  CHECK(WithoutUtf8Bom("\xEF\xBB\xBF" "a,b") == "a,b");
  CHECK(WithoutUtf8Bom("a,b\xEF\xBB\xBF") == "a,b\xEF\xBB\xBF");
  CHECK(WithoutUtf8Bom("") == "");
}

TEST_CASE("DurationText takes the largest unit that keeps the span at least 1") {
  const struct {
    double seconds;
    const char* text;
  } cases[] = {{0, "0 ms"},       {0.85, "850 ms"}, {1, "1 s"},     {45.2, "45.2 s"}, {60, "1 min"},
               {750, "12.5 min"}, {11160, "3.1 h"}, {86400, "1 d"}, {302400, "3.5 d"}};
  for (const auto& c : cases) {
    CAPTURE(c.seconds);
    CHECK(DurationText(c.seconds) == c.text);
  }
}

}  // namespace
}  // namespace knobsim

namespace knobsim {
namespace {

TEST_CASE("MarkdownText: a name from the input is plain text in a table cell and pings nobody") {
  struct Case {
    std::string_view in, out;
  };
  const Case cases[] = {
      {"ai/ocr-0", "ai/ocr-0"},
      {"a|b", "a\\|b"},
      {"`code`", "\\`code\\`"},
      {"two\nlines\r\n", "two lines  "},
      {"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
      {"Q&A", "Q&amp;A"},
      {"@platform-team", "@\xE2\x81\xA0platform-team"},
      {"*bold* _it_ ~del~ [link](u) #12 \\",
       "\\*bold\\* \\_it\\_ \\~del\\~ \\[link\\](u) \\#12 \\\\"},
      {"tab\there\x7f", "tab here "},
  };
  for (const Case& c : cases) {
    CAPTURE(c.in);
    CHECK(MarkdownText(c.in) == c.out);
  }
}

TEST_CASE("YamlCommentText keeps a comment one line and says what the text was") {
  struct Case {
    std::string_view in, out;
  };
  const Case cases[] = {
      {"Deployment ai/ocr", "Deployment ai/ocr"},
      {"a\nb", "a\\nb"},
      {"a\r\nb", "a\\r\\nb"},
      {"nul\x01\x7f", "nul\\x01\\x7f"},
      {"tab\tok", "tab\tok"},
      {"nel\xC2\x85ls\xE2\x80\xA8ps\xE2\x80\xA9", "nel\\u0085ls\\u2028ps\\u2029"},
      {"\xC3\xA9t\xC3\xA9", "\xC3\xA9t\xC3\xA9"},  // other UTF-8 as it is
  };
  for (const Case& c : cases) {
    CAPTURE(c.in);
    CHECK(YamlCommentText(c.in) == c.out);
  }
}

}  // namespace
TEST_CASE("TrimSpace drops leading and trailing ASCII whitespace only") {
  struct Case {
    std::string_view in, out;
  };
  const Case cases[] = {
      {"", ""}, {" \t\n", ""}, {"a", "a"}, {"  L4 ", "L4"}, {"\tA 100\r\n", "A 100"}};
  for (const Case& c : cases) CHECK(TrimSpace(c.in) == c.out);
}

}  // namespace knobsim

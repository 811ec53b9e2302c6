// Text forms the export writes (text_encoding.h).
#include "tools/gen-export/text_encoding.h"

#include <fmt/format.h>

#include "tools/gen-export/vocabulary.h"

namespace knobsim::gen_export {

// RFC 3339 UTC from Unix seconds (H. Hinnant's civil_from_days), free of locale and time zone.
std::string Rfc3339(int64_t t) {
  int64_t days = t >= 0 ? t / kDay : (t - kDay + 1) / kDay;
  const int64_t secs = t - days * kDay;
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, secs / 3600, secs / 60 % 60,
                     secs % 60);
}

std::string Base64Url(std::string_view bytes) {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(buffer >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (6 - bits)) & 63]);
  return out;
}

std::string Cpu(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : fmt::format("{}m", milli);
}
std::string Mem(int64_t mib) {
  return mib % 1024 == 0 ? fmt::format("{}Gi", mib / 1024) : fmt::format("{}Mi", mib);
}

}  // namespace knobsim::gen_export

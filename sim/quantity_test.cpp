#include "sim/quantity.h"

#include <doctest/doctest.h>

namespace knobsim {
namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kS = 1'000'000'000;

TEST_CASE("quantities follow the Kubernetes grammar") {
  CHECK(*ParseQuantity("15") == 15);
  CHECK(*ParseQuantity("1.5") == 1.5);
  CHECK(*ParseQuantity("3920m") == doctest::Approx(3.92));
  CHECK(*ParseQuantity("4Ki") == 4096);
  CHECK(*ParseQuantity("1Mi") == 1048576);
  CHECK(*ParseQuantity("1Gi") == 1073741824.0);
  CHECK(*ParseQuantity("1Ti") == 1099511627776.0);
  CHECK(*ParseQuantity("1Pi") == 1125899906842624.0);
  CHECK(*ParseQuantity("1Ei") == 1152921504606846976.0);
  CHECK(*ParseQuantity("5k") == 5000);
  CHECK(*ParseQuantity("2M") == 2e6);
  CHECK(*ParseQuantity("2G") == 2e9);
  CHECK(*ParseQuantity("2T") == 2e12);
  CHECK(*ParseQuantity("2P") == 2e15);
  CHECK(*ParseQuantity("2E") == 2e18);
  CHECK(*ParseQuantity("250u") == doctest::Approx(250e-6));
  CHECK(*ParseQuantity("100n") == doctest::Approx(100e-9));
  CHECK(*ParseQuantity("1e3") == 1000);
  CHECK(*ParseQuantity("1E3") == 1000);
  CHECK(*ParseQuantity("2e-3") == doctest::Approx(0.002));
  CHECK(*ParseQuantity(".5") == 0.5);
  CHECK(*ParseQuantity("5.") == 5);
  CHECK(*ParseQuantity("-1.5Gi") == -1.5 * 1073741824.0);
  CHECK(*ParseQuantity("+2") == 2);
}

TEST_CASE("unit names, lower-case suffixes and whitespace are not quantities") {
  for (const char* bad : {"", "4GB", "4gi", "4g", "4 Gi", " 4", "Gi", "1.2.3", "4K", "e3", "1e",
                          "1ex", "inf", "nan", "0x10", "four"}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseQuantity(bad).has_value());
  }
}

TEST_CASE("ParseQuantityMilli: signed milli-units, rounded up as MilliValue does") {
  struct Case {
    const char* text;
    std::optional<int64_t> milli;
  };
  const Case cases[] = {{"1Gi", int64_t{1073741824000}},
                        {"250m", 250},
                        {"-1", -1000},
                        {"1.5", 1500},
                        {"1u", 1},
                        {"80Gi", int64_t{85899345920000}},
                        {"0", 0},
                        {"4GB", std::nullopt},
                        {"1e30", std::nullopt}};
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(ParseQuantityMilli(c.text) == c.milli);
  }
}

TEST_CASE("cpu is read in millicores and rounded up as Kubernetes does") {
  CHECK(*ParseCpuMilli("2").value == 2000);
  CHECK(*ParseCpuMilli("1.5").value == 1500);
  CHECK(*ParseCpuMilli("3920m").value == 3920);
  CHECK(*ParseCpuMilli("0.1").value == 100);
  CHECK(*ParseCpuMilli("100u").value == 1);
  CHECK(*ParseCpuMilli("0").value == 0);
  auto bad = ParseCpuMilli("2 cores");
  CHECK(bad.error == "\"2 cores\" is not a quantity");
  CHECK(bad.hint == "cpu is in cores, e.g. 2, 1.5 or 500m");
  CHECK(ParseCpuMilli("-1").error == "\"-1\" is negative");
}

TEST_CASE("memory is bytes, read in MiB rounded up") {
  CHECK(*ParseMemoryMib("128Gi").value == 131072);
  CHECK(*ParseMemoryMib("512Mi").value == 512);
  CHECK(*ParseMemoryMib("14368792Ki").value == 14033);  // 14032.02 MiB
  CHECK(*ParseMemoryMib("1048576").value == 1);
  CHECK(*ParseMemoryMib("1048577").value == 2);
  CHECK(*ParseMemoryMib("1G").value == 954);  // 953.67 MiB
  CHECK(*ParseMemoryMib("0").value == 0);
}

TEST_CASE("memory slips get a hint") {
  auto gb = ParseMemoryMib("8GB");
  CHECK(gb.error == "\"8GB\" is not a quantity");
  CHECK(gb.hint == "did you mean 8Gi?");
  CHECK(ParseMemoryMib("8gi").hint == "did you mean 8Gi?");
  CHECK(ParseMemoryMib("512MiB").hint == "did you mean 512Mi?");
  CHECK(ParseMemoryMib("64kb").hint == "did you mean 64Ki?");
  auto milli = ParseMemoryMib("128m");
  CHECK(milli.error == "\"128m\" is millibytes (m means milli)");
  CHECK(milli.hint == "did you mean 128Mi?");
  auto words = ParseMemoryMib("lots");
  CHECK(words.error == "\"lots\" is not a quantity");
  CHECK(words.hint == "memory is bytes or a quantity such as 512Mi or 8Gi");
  CHECK(ParseMemoryMib("-1Gi").error == "\"-1Gi\" is negative");
}

TEST_CASE("gpu-mem is a whole number of GiB units") {
  CHECK(*ParseGpuMemUnits("4").value == 4);
  CHECK(*ParseGpuMemUnits("0").value == 0);
  CHECK(*ParseGpuMemUnits("4Gi").value == 4);
  CHECK(*ParseGpuMemUnits("4096Mi").value == 4);
  CHECK(*ParseGpuMemUnits("4.0").value == 4);
  CHECK(*ParseGpuMemUnits("4000m").value == 4);
}

TEST_CASE("gpu-mem in decimal bytes, unit names or fractions is rejected with a hint") {
  auto gb = ParseGpuMemUnits("4GB");
  CHECK(gb.error == "\"4GB\" is not a quantity");
  CHECK(gb.hint == "did you mean 4Gi?");
  auto g = ParseGpuMemUnits("4G");
  CHECK(g.error == "\"4G\" is decimal gigabytes, not GiB");
  CHECK(g.hint == "did you mean 4Gi?");
  auto half = ParseGpuMemUnits("5.5");
  CHECK(half.error == "\"5.5\" is not a whole number");
  CHECK(half.hint == "extended resources such as aliyun.com/gpu-mem are integers");
  auto mi = ParseGpuMemUnits("1000Mi");
  CHECK(mi.error == "\"1000Mi\" is not a whole number of GiB");
  CHECK(mi.hint == "aliyun.com/gpu-mem counts whole GiB");
  CHECK(ParseGpuMemUnits("-2").error == "\"-2\" is negative");
  CHECK(ParseGpuMemUnits("four").hint == "aliyun.com/gpu-mem counts GiB, e.g. 4 or 4Gi");
  CHECK(ParseGpuMemUnits("99999999999").error == "\"99999999999\" is too large");
}

TEST_CASE("durations follow Go's time.ParseDuration") {
  CHECK(*ParseDuration("30ms").value == 30 * kMs);
  CHECK(*ParseDuration("5m").value == 300 * kS);
  CHECK(*ParseDuration("1h30m").value == 5400 * kS);
  CHECK(*ParseDuration("1.5s").value == 1500 * kMs);
  CHECK(*ParseDuration("250us").value == 250'000);
  CHECK(*ParseDuration("250\xC2\xB5s").value == 250'000);
  CHECK(*ParseDuration("250\xCE\xBCs").value == 250'000);
  CHECK(*ParseDuration("100ns").value == 100);
  CHECK(*ParseDuration("0").value == 0);
  CHECK(*ParseDuration("0s").value == 0);
  CHECK(*ParseDuration(".5s").value == 500 * kMs);
  CHECK(*ParseDuration("1h0.5m").value == 3630 * kS);
  CHECK(*ParseDuration("2562047h").value == 2562047LL * 3600 * kS);
}

TEST_CASE("durations take days and weeks beside Go's units: exactly 24 h and 7 d") {
  CHECK(*ParseDuration("1d").value == 86400 * kS);
  CHECK(*ParseDuration("7d").value == 7 * 86400 * kS);
  CHECK(*ParseDuration("1w").value == 7 * 86400 * kS);
  CHECK(*ParseDuration("1d12h").value == 36 * 3600 * kS);
  CHECK(*ParseDuration("1.5d").value == 36 * 3600 * kS);
  CHECK(*ParseDuration("2w3d").value == 17 * 86400 * kS);
  CHECK(ParseDuration("106751d").ok());  // int64 nanoseconds hold 106751.99 days
  CHECK(ParseDuration("106752d").error == "\"106752d\" is too long");
}

TEST_CASE("a duration without a unit says which unit to add") {
  auto bare = ParseDuration("30");
  CHECK(bare.error == "\"30\" has no unit");
  CHECK(bare.hint == "add a unit, e.g. 30s");
  CHECK(ParseDuration("1.5").hint == "add a unit, e.g. 1.5s");
}

TEST_CASE("duration unit names Go does not know get the Go spelling") {
  auto min = ParseDuration("5min");
  CHECK(min.error == "\"5min\" has an unknown unit \"min\"");
  CHECK(min.hint == "did you mean 5m?");
  CHECK(ParseDuration("1h30min").hint == "did you mean 1h30m?");
  CHECK(ParseDuration("10sec").hint == "did you mean 10s?");
  CHECK(ParseDuration("2days").hint == "did you mean 2d?");
  CHECK(ParseDuration("3weeks").hint == "did you mean 3w?");
  CHECK(ParseDuration("3y").hint == "units are ns, us, ms, s, m, h, d, w");
  CHECK(ParseDuration("1h30").error == "\"1h30\" has a number without a unit");
  CHECK(ParseDuration("-5s").error == "\"-5s\" is negative");
  CHECK(ParseDuration("s").error == "\"s\" is not a duration");
  CHECK(ParseDuration("").error == "empty duration");
  CHECK(ParseDuration("2562048h").error == "\"2562048h\" is too long");
  CHECK(ParseDuration("9223372036854775807ns").ok());
  CHECK(ParseDuration("9223372036854775808ns").error == "\"9223372036854775808ns\" is too long");
}

TEST_CASE("rates are per second, per minute or per hour") {
  CHECK(*ParseRate("20/s").value == 20);
  CHECK(*ParseRate("1200/min").value == 20);
  CHECK(*ParseRate("3/h").value == doctest::Approx(3.0 / 3600));
  CHECK(*ParseRate("0.5/s").value == 0.5);
  CHECK(*ParseRate("0").value == 0);
}

TEST_CASE("malformed rates say how to write them") {
  auto words = ParseRate("20 per s");
  CHECK(words.error == "\"20 per s\" is not a rate");
  CHECK(words.hint == "write it as 20/s");
  CHECK(ParseRate("20rps").hint == "write it as 20/s");
  CHECK(ParseRate("fast").hint == "write rates as 20/s, 1200/min or 3/h");
  auto bare = ParseRate("20");
  CHECK(bare.error == "\"20\" has no unit");
  CHECK(bare.hint == "add a unit, e.g. 20/s");
  auto m = ParseRate("20/m");
  CHECK(m.error == "\"20/m\" has an unknown unit \"m\"");
  CHECK(m.hint == "did you mean 20/min?");
  CHECK(ParseRate("20/day").hint == "write rates as 20/s, 1200/min or 3/h");
  CHECK(ParseRate("-1/s").error == "\"-1/s\" is negative");
}

TEST_CASE("percentages are written with % or as a fraction") {
  CHECK(*ParsePercentage("0.1%").value == doctest::Approx(0.001));
  CHECK(*ParsePercentage("0.001").value == 0.001);
  CHECK(*ParsePercentage("100%").value == 1);
  CHECK(*ParsePercentage("0").value == 0);
  auto five = ParsePercentage("5");
  CHECK(five.error == "\"5\" is more than 1 as a fraction");
  CHECK(five.hint == "did you mean 5%?");
  CHECK(ParsePercentage("150%").error == "\"150%\" is not between 0% and 100%");
  CHECK(ParsePercentage("-0.1").error == "\"-0.1\" is not between 0 and 1");
  CHECK(ParsePercentage("a lot").hint == "write it as 0.1% or as the fraction 0.001");
}

}  // namespace
}  // namespace knobsim

namespace knobsim {
namespace {

TEST_CASE("resource amounts read and write in the unit of the resource a quota key names") {
  CHECK(QuotaResourceName("requests.cpu") == "cpu");
  CHECK(QuotaResourceName("gold.storageclass.storage.k8s.io/requests.storage") == "storage");
  CHECK(QuotaResourceName("count/deployments.apps") == "count/deployments.apps");
  CHECK(IsByteResource("limits.memory"));
  CHECK_FALSE(IsByteResource("requests.aliyun.com/gpu-mem"));
  CHECK(*ParseResourceAmount("requests.cpu", "3920m").value == 3920);
  CHECK(*ParseResourceAmount("requests.cpu", "64").value == 64000);
  CHECK(*ParseResourceAmount("limits.memory", "128Gi").value == int64_t{128} << 30);
  CHECK(*ParseResourceAmount("pods", "50").value == 50);
  CHECK(ParseResourceAmount("limits.memory", "8GB").hint == "did you mean 8Gi?");
  CHECK_FALSE(ParseResourceAmount("pods", "-1").ok());
  CHECK(FormatResourceAmount("requests.cpu", 3920) == "3920m");
  CHECK(FormatResourceAmount("requests.cpu", 64000) == "64");
  CHECK(FormatResourceAmount("limits.memory", int64_t{128} << 30) == "128Gi");
  CHECK(FormatResourceAmount("storage", 1536LL << 20) == "1536Mi");
  CHECK(FormatResourceAmount("memory", 1000) == "1000");
  CHECK(FormatResourceAmount("requests.aliyun.com/gpu-mem", 96) == "96");
  for (const char* key : {"requests.cpu", "limits.memory", "pods", "requests.storage"}) {
    for (int64_t amount : {int64_t{0}, int64_t{1}, int64_t{1500}, int64_t{3} << 30}) {
      CAPTURE(key);
      CAPTURE(amount);
      CHECK(*ParseResourceAmount(key, FormatResourceAmount(key, amount)).value == amount);
    }
  }
}

}  // namespace
}  // namespace knobsim

#include "sim/io/price_reader.h"

#include <doctest/doctest.h>

#include <string>

namespace knobsim {
namespace {

const std::string kHead =
    "currency: USD\n"
    "date: 2026-10-01\n"
    "source: \"example numbers\"\n";

std::string ErrorOf(const std::string& yaml) {
  Expected<PriceBook> r = ReadPriceString(yaml, "p.yaml");
  return r.ok() ? "" : r.error().ToString();
}

PriceBook Read(const std::string& yaml) {
  Expected<PriceBook> r = ReadPriceString(yaml, "p.yaml");
  if (!r.ok()) FAIL(r.error().ToString());
  return *r;
}

TEST_CASE("a price file gives each instance its shape and monthly prices") {
  const PriceBook b = Read(kHead +
                           "example: true\n"
                           "spot: {replace_after: 4m}\n"
                           "instances:\n"
                           "  - {instance_type: ecs.gn7i-c8g1.2xlarge, gpu_type: A10, gpus: 1, "
                           "cpu: 8, memory: 30Gi,\n"
                           "     on_demand: 700.00, spot: 210.5, reserved: 455, "
                           "spot_interruptions_per_hour: 0.02}\n"
                           "  - {instance_type: ecs.gn7i-c32g1.16xlarge, gpu_type: A10, gpus: 2, "
                           "reserved: 1200}\n");
  CHECK(b.file == "p.yaml");
  CHECK(b.currency == "USD");
  CHECK(b.date == "2026-10-01");
  CHECK(b.source == "example numbers");
  CHECK(b.example);
  CHECK(b.spot_replace_after == 240 * kNanosPerSecond);
  REQUIRE(b.instances.size() == 2);
  const InstancePrice& a = b.instances[0];
  CHECK(a.instance_type == "ecs.gn7i-c8g1.2xlarge");
  CHECK(a.gpu_type == "A10");
  CHECK(a.gpus == 1);
  CHECK(a.cpu_milli == 8000);
  CHECK(a.memory_mib == 30 * 1024);
  CHECK(*a.on_demand == 700.0);
  CHECK(*a.spot == 210.5);
  CHECK(*a.reserved == 455.0);
  CHECK(a.spot_interruptions_per_hour == 0.02);
  CHECK(a.line == 7);
  const InstancePrice& two = b.instances[1];
  CHECK_FALSE(two.on_demand.has_value());
  CHECK_FALSE(two.spot.has_value());
  CHECK(*two.reserved == 1200.0);
  CHECK(two.cpu_milli == 0);
  CHECK(two.memory_mib == 0);
  CHECK(two.line == 9);
}

TEST_CASE("defaults: not an example, a replacement node in 3 minutes") {
  const PriceBook b =
      Read(kHead + "instances:\n  - {instance_type: x, gpu_type: L20, gpus: 1, on_demand: 1}\n");
  CHECK_FALSE(b.example);
  CHECK(b.spot_replace_after == 180 * kNanosPerSecond);
}

TEST_CASE("Find: exact GPU count, any case, the cheapest on-demand instance first") {
  const PriceBook b = Read(kHead +
                           "instances:\n"
                           "  - {instance_type: a, gpu_type: A10, gpus: 1, reserved: 10}\n"
                           "  - {instance_type: b, gpu_type: A10, gpus: 1, on_demand: 900}\n"
                           "  - {instance_type: c, gpu_type: A10, gpus: 1, on_demand: 700}\n"
                           "  - {instance_type: d, gpu_type: A10, gpus: 1, on_demand: 700}\n"
                           "  - {instance_type: e, gpu_type: A10, gpus: 4, on_demand: 2500}\n"
                           "  - {instance_type: f, gpu_type: L20, gpus: 2, reserved: 3}\n");
  REQUIRE(b.Find("A10", 1) != nullptr);
  CHECK(b.Find("A10", 1)->instance_type == "c");  // cheapest; d ties later in the file
  CHECK(b.Find("a10", 4)->instance_type == "e");
  CHECK(b.Find("A10", 2) == nullptr);
  CHECK(b.Find("A100-40G", 1) == nullptr);
  CHECK(b.Find("L20", 2)->instance_type == "f");  // no on-demand price: still the one there is
}

TEST_CASE("price file mistakes name the line and the field") {
  const std::string list = "instances:\n  - {instance_type: x, gpu_type: A10, gpus: 1, ";
  CHECK(ErrorOf(kHead + list + "on_demand: -5}\n") ==
        "p.yaml:5: instances[0].on_demand: -5 is negative; a price per node per month in the "
        "file's currency");
  CHECK(ErrorOf(kHead + list + "on_demand: 12 USD}\n") ==
        "p.yaml:5: instances[0].on_demand: \"12 USD\" is not a number; a price per node per "
        "month in the file's currency");
  CHECK(ErrorOf(kHead + list + "ondemand: 5}\n") ==
        "p.yaml:5: instances[0].ondemand: unknown key; did you mean `on_demand`?");
  CHECK(ErrorOf(kHead + list + "spot: 5}\n") ==
        "p.yaml:5: instances[0].spot: a spot price needs spot_interruptions_per_hour; reclaims "
        "per node per hour, e.g. 0.02; the simulation interrupts spot nodes at that rate");
  CHECK(ErrorOf(kHead + list + "on_demand: 5, spot_interruptions_per_hour: 0.1}\n") ==
        "p.yaml:5: instances[0].spot_interruptions_per_hour: spot_interruptions_per_hour without "
        "a spot price; add `spot:` or remove it");
  CHECK(ErrorOf(kHead + list + "spot: 5, spot_interruptions_per_hour: 90}\n") ==
        "p.yaml:5: instances[0].spot_interruptions_per_hour: 90 is more than 60; reclaims per "
        "node per hour, 0..60");
  CHECK(ErrorOf(kHead + list + "cpu: 8}\n") ==
        "p.yaml:5: instances[0]: instance \"x\" has no price; give at least one of on_demand, "
        "spot, reserved");
  CHECK(ErrorOf(kHead + list + "on_demand: 5, memory: 30GB}\n") ==
        "p.yaml:5: instances[0].memory: \"30GB\" is not a quantity; did you mean 30Gi?");
  CHECK(ErrorOf(kHead + "instances:\n  - {instance_type: x, gpu_type: A10, gpus: 0, "
                        "on_demand: 1}\n") == "p.yaml:5: instances[0].gpus: 0 is less than 1");
  CHECK(ErrorOf(kHead + "instances:\n  - {gpu_type: A10, gpus: 1, on_demand: 1}\n") ==
        "p.yaml:5: instances[0]: missing required key `instance_type`");
  CHECK(ErrorOf(kHead + list + "on_demand: 1}\n" +
                "  - {instance_type: x, gpu_type: A10, gpus: 2, on_demand: 2}\n") ==
        "p.yaml:6: instances[1].instance_type: duplicate instance type \"x\"; first listed on "
        "line 5");
}

TEST_CASE("the book says what, when and where from") {
  const std::string list =
      "instances:\n  - {instance_type: x, gpu_type: A10, gpus: 1, on_demand: 1}\n";
  CHECK(ErrorOf("date: 2026-10-01\nsource: s\n" + list) ==
        "p.yaml:1: missing required key `currency`");
  CHECK(ErrorOf("currency: dollars\ndate: 2026-10-01\nsource: s\n" + list) ==
        "p.yaml:1: currency: \"dollars\" is not a currency code; an ISO 4217 code, e.g. USD or "
        "CNY");
  CHECK(ErrorOf("currency: USD\ndate: 2026-02-30\nsource: s\n" + list) ==
        "p.yaml:2: date: \"2026-02-30\" is not a day of the calendar; write it as YYYY-MM-DD");
  CHECK(ErrorOf("currency: USD\ndate: 1/10/2026\nsource: s\n" + list) ==
        "p.yaml:2: date: \"1/10/2026\" is not a date; write it as YYYY-MM-DD, e.g. 2026-10-01");
  CHECK(Read("currency: USD\ndate: 2028-02-29\nsource: s\n" + list).date == "2028-02-29");
  CHECK(ErrorOf("currency: USD\ndate: 2026-10-01\nsource: \"\"\n" + list) ==
        "p.yaml:3: source: must not be empty");
  CHECK(ErrorOf(kHead + "example: yes\n" + list) ==
        "p.yaml:4: example: \"yes\" is not true or false");
  CHECK(ErrorOf(kHead + "spot: {replace_after: 3}\n" + list) ==
        "p.yaml:4: spot.replace_after: \"3\" has no unit; add a unit, e.g. 3s");
  CHECK(ErrorOf(kHead + "spot: {delay: 3m}\n" + list) ==
        "p.yaml:4: spot.delay: unknown key; known keys: replace_after");
  CHECK(ErrorOf(kHead + "instances: []\n") ==
        "p.yaml:4: instances: no instances; list at least one instance type");
  CHECK(ErrorOf(kHead + "currencies: EUR\n" + list) ==
        "p.yaml:4: currencies: unknown key; did you mean `currency`?");
}

TEST_CASE("broken YAML, empty files and second documents are errors, never a hang") {
  CHECK(ErrorOf("") ==
        "p.yaml: the file holds no prices; a price file needs currency, date, "
        "source and instances");
  CHECK(ErrorOf(",\n") ==
        "p.yaml:1: invalid YAML: a document cannot start here; a `,` outside [...] or {...}?");
  CHECK(ErrorOf(kHead + "instances: [\n").rfind("p.yaml:", 0) == 0);
  CHECK(ErrorOf(kHead + "instances:\n  - {instance_type: x, gpu_type: A10, gpus: 1, "
                        "on_demand: 1}\n---\ncurrency: EUR\n") ==
        "p.yaml:6: a second YAML document; a price file holds one");
  // An empty document after the first is harmless.
  CHECK(ErrorOf(kHead + "instances:\n  - {instance_type: x, gpu_type: A10, gpus: 1, "
                        "on_demand: 1}\n---\n") == "");
  CHECK(ErrorOf("just text\n") == "p.yaml:1: expected a mapping, found \"just text\"");
  CHECK(ReadPriceFile("/nonexistent/prices.yaml")
            .error()
            .ToString()
            .rfind("/nonexistent/prices.yaml: cannot read the file", 0) == 0);
}

// The repository root, from this file's place in it (under CMake __FILE__ is absolute).
std::string RepositoryRoot() {
  const std::string here = __FILE__;
  const size_t at = here.rfind("sim/io/");
  return at == std::string::npos ? std::string() : here.substr(0, at);
}

TEST_CASE("the bundled example price file reads and covers the catalog's common GPU shapes") {
  const std::string path = RepositoryRoot() + "scenarios/prices-example.yaml";
  Expected<PriceBook> r = ReadPriceFile(path);
  REQUIRE_MESSAGE(r.ok(), r.error().ToString());
  CHECK(r->example);
  CHECK_FALSE(r->source.empty());
  for (const char* gpu : {"A10", "L20", "A100-40G"}) {
    CHECK_MESSAGE(r->Find(gpu, 1) != nullptr, gpu);
  }
  for (const InstancePrice& p : r->instances) {
    CHECK_MESSAGE(p.on_demand.has_value(), p.instance_type);
    if (p.spot) CHECK_MESSAGE(*p.spot < *p.on_demand, p.instance_type);
    if (p.reserved) CHECK_MESSAGE(*p.reserved < *p.on_demand, p.instance_type);
  }
}

}  // namespace
}  // namespace knobsim

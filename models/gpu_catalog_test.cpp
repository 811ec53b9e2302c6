#include "models/gpu_catalog.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace knobsim {

TEST_CASE("card memory units are whole GiB of the NVML figure, rounded down") {
  // gpushare-device-plugin setGPUMemory: raw MiB / 1024 (docs/semantics.md §1.1).
  CHECK(CardMemoryUnits(16130) == 15);  // V100-16G
  CHECK(CardMemoryUnits(15360) == 15);  // T4
  CHECK(CardMemoryUnits(23028) == 22);  // A10
  CHECK(CardMemoryUnits(1024) == 1);
  CHECK(CardMemoryUnits(1023) == 0);
  CHECK(CardMemoryUnits(0) == 0);
  CHECK(CardMemoryUnits(-5) == 0);
}

TEST_CASE("the built-in catalog holds the ten cards ACK and GPU-operator users run") {
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  for (const char* name :
       {"T4", "A10", "V100-16G", "V100-32G", "A100-40G", "A100-80G", "L20", "L4", "H100", "H200"}) {
    CAPTURE(name);
    REQUIRE(catalog.Find(name) != nullptr);
  }
  CHECK(catalog.types().size() == 10);
}

TEST_CASE("built-in memory is what NVML reports, so the unit counts match the device plugin") {
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  struct Row {
    const char* name;
    int64_t mib;
    int units;
  };
  for (const Row& row : {Row{"T4", 15360, 15}, Row{"A10", 23028, 22}, Row{"V100-16G", 16130, 15},
                         Row{"V100-32G", 32510, 31}, Row{"A100-40G", 40960, 40},
                         Row{"A100-80G", 81920, 80}, Row{"L20", 46068, 44}, Row{"L4", 23034, 22},
                         Row{"H100", 81559, 79}, Row{"H200", 143771, 140}}) {
    CAPTURE(row.name);
    const GpuType* type = catalog.Find(row.name);
    REQUIRE(type != nullptr);
    CHECK(type->memory_mib == row.mib);
    CHECK(CardMemoryUnits(type->memory_mib) == row.units);
  }
}

TEST_CASE("speeds are dense FP16 tensor TFLOPS relative to the A10") {
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  CHECK(catalog.Find("A10")->speed == doctest::Approx(1.0));
  CHECK(catalog.Find("T4")->speed == doctest::Approx(65.0 / 125));
  CHECK(catalog.Find("V100-16G")->speed == doctest::Approx(1.0));
  CHECK(catalog.Find("A100-40G")->speed == doctest::Approx(312.0 / 125));
  CHECK(catalog.Find("A100-80G")->speed == catalog.Find("A100-40G")->speed);
  CHECK(catalog.Find("L20")->speed == doctest::Approx(119.5 / 125));
  CHECK(catalog.Find("L4")->speed == doctest::Approx(121.0 / 125));
  CHECK(catalog.Find("H100")->speed == doctest::Approx(989.4 / 125));
  CHECK(catalog.Find("H200")->speed == catalog.Find("H100")->speed);
}

TEST_CASE("every built-in entry states its source, a CUDA context and an interconnect") {
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  std::set<std::string> names;
  for (const GpuType& type : catalog.types()) {
    CAPTURE(type.name);
    CHECK(names.insert(type.name).second);
    CHECK(type.speed > 0);
    CHECK(type.context_mib >= 300);
    CHECK(type.context_mib <= 500);
    CHECK(type.context_mib < type.memory_mib);
    CHECK((type.interconnect == "pcie" || type.interconnect == "nvlink"));
    CHECK(!type.source.empty());
  }
}

TEST_CASE("Find accepts any case and returns nullptr for an unknown card") {
  const GpuCatalog catalog = GpuCatalog::BuiltIn();
  REQUIRE(catalog.Find("a100-80g") != nullptr);
  CHECK(catalog.Find("a100-80g")->name == "A100-80G");
  CHECK(catalog.Find("v100-16G") == catalog.Find("V100-16G"));
  CHECK(catalog.Find("B200") == nullptr);
  CHECK(catalog.Find("") == nullptr);
  CHECK(catalog.Find("A10 ") == nullptr);
}

TEST_CASE("Put adds a new card and replaces one of the same name, ignoring case") {
  GpuCatalog catalog = GpuCatalog::BuiltIn();
  catalog.Put({"RTX4090", 24564, 1.3, 400, "pcie", "test"});
  REQUIRE(catalog.Find("RTX4090") != nullptr);
  CHECK(catalog.types().size() == 11);

  catalog.Put({"a10", 23028, 0.9, 350, "pcie", "scenario override"});
  CHECK(catalog.types().size() == 11);
  const GpuType* a10 = catalog.Find("A10");
  REQUIRE(a10 != nullptr);
  CHECK(a10->speed == doctest::Approx(0.9));
  CHECK(a10->context_mib == 350);
  CHECK(a10->source == "scenario override");
}

TEST_CASE("an empty catalog finds nothing") {
  GpuCatalog catalog;
  CHECK(catalog.types().empty());
  CHECK(catalog.Find("A10") == nullptr);
}

TEST_CASE("nvidia_name and gpu.product labels map to catalog keys, unknown ones to nothing") {
  // ACK's nvidia_name, and GPU feature discovery's product (NVDP internal/lm/resource.go
  // getProductName: the NVML name with blanks as `-`; README examples Tesla-T4, A100-SXM4-40GB).
  const std::pair<const char*, const char*> cases[] = {
      {"NVIDIA-L4", "L4"},
      {"A100-SXM4-40GB", "A100-40G"},
      {"NVIDIA-A100-80GB-PCIe", "A100-80G"},
      {"NVIDIA-H100-PCIe", ""},  // 756 dense TFLOPS, not the SXM5 card's 989
      {"NVIDIA-H100-NVL", ""},   // 94 GB
      {"NVIDIA-H200-NVL", ""},
      {"NVIDIA-L40S", ""},
      {"NVIDIA-A10G", ""},
      {"NVIDIA-L20", "L20"},
      {"L20", "L20"},
      {"Tesla-T4", "T4"},
      {"NVIDIA-A10", "A10"},
      {"NVIDIA-A100-SXM4-80GB", "A100-80G"},
      {"NVIDIA-A100-PCIE-40GB", "A100-40G"},
      {"Tesla-V100-SXM2-32GB", "V100-32G"},
      {"Tesla-V100-SXM2-16GB", "V100-16G"},
      {"NVIDIA-H100-80GB-HBM3", "H100"},
      {"NVIDIA H200", "H200"},
      {"NVIDIA-H20", ""},
      {"", ""},
  };
  for (const auto& [label, key] : cases) {
    CAPTURE(label);
    CHECK(GpuCatalogKey(label) == key);
  }
}

}  // namespace knobsim

#include "sim/io/kube/resources.h"

#include <algorithm>
#include <cctype>

#include "sim/io/kube/kube_text.h"
#include "sim/quantity.h"

namespace knobsim::kube {
namespace {

constexpr std::string_view kGpuCoreTflopsResource = "aliyun.com/gpu-core.tflops";

// "did you mean 4?" for aliyun.com/gpu-mem written as a byte size (`4Gi`, `4G`, `4GB`): in a
// manifest the resource counts GiB units, so `4Gi` asks for 4294967296 of them. Empty otherwise.
std::string GpuMemHint(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return "";
  std::string unit;
  for (char c : text.substr(digits)) {
    unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (unit != "g" && unit != "gi" && unit != "gb" && unit != "gib") return "";
  return Cat({"ACK counts aliyun.com/gpu-mem in GiB: did you mean ", text.substr(0, digits), "?"});
}

// Resources counted in bytes; everything else but cpu counts units (kube_types.h).

// Kubernetes' IsExtendedResourceName: a qualified name outside the kubernetes.io domain.
// Those must be integers and cannot be over-committed (limits required, requests == limits).
bool IsExtendedResource(std::string_view name) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || EndsWith(domain, ".kubernetes.io")) return false;
  return !name.starts_with("requests.");
}

bool IsGpuResource(std::string_view name) {
  return name == kGpuMemResource || name == kGpuCoreResource || name == kGpuCountResource ||
         name == kNvidiaGpuResource || name == kTopologyGpuResource ||
         name == kGpuCoreTflopsResource;
}

}  // namespace

int64_t ResourceValue(FieldReader& r, const Field& f, const std::string& name,
                      const std::string& text) {
  if (name == "cpu") {
    Parsed<int64_t> cpu = ParseCpuMilli(text);
    if (!cpu.ok()) r.Fail(f, cpu.error, cpu.hint);
    return *cpu.value;
  }
  const std::optional<double> v = ParseQuantity(text);
  if (IsByteResource(name)) {
    if (!v) {
      // ParseMemoryMib knows the usual slips (`4GB`, `4gi`) and their fixes.
      Parsed<int64_t> m = ParseMemoryMib(text);
      std::string hint = m.hint;
      if (!hint.starts_with("did you mean")) {
        hint = name + " is in bytes or a quantity such as 512Mi or 8Gi";
      }
      r.Fail(f, Quote(text) + " is not a quantity", hint);
    }
    if (*v < 0) r.Fail(f, Quote(text) + " is negative");
    const std::optional<int64_t> bytes = CeilToInt(*v);
    if (!bytes) r.Fail(f, Quote(text) + " is too large");
    if (EndsWith(text, "m") && *v < 1e6) {
      // Valid Kubernetes (millibytes, rounded up to bytes), and what a cluster does with it,
      // but almost always a slip for Mi.
      r.Warn(f, Cat({Quote(text), " is ", text.substr(0, text.size() - 1),
                     " millibytes (m means milli), counted as ", std::to_string(*bytes),
                     " byte(s); did you mean ", text.substr(0, text.size() - 1), "Mi?"}));
    }
    return *bytes;
  }
  if (!v) {
    std::string hint = name == kGpuMemResource ? GpuMemHint(text) : "";
    if (hint.empty()) hint = "write a whole number such as 1 or 8";
    r.Fail(f, Quote(text) + " is not a quantity", hint);
  }
  if (*v < 0) r.Fail(f, Quote(text) + " is negative");
  std::optional<int64_t> n = ExactInt(*v);
  if (!n && IsExtendedResource(name)) {
    r.Fail(f, Quote(text) + " is not a whole number",
           Cat({"extended resources such as ", name, " are integers"}));
  }
  if (!n) n = CeilToInt(*v);
  if (!n) r.Fail(f, Quote(text) + " is too large");
  if (IsGpuResource(name) && *n > kMaxGpuUnits) {
    std::string hint = name == kGpuMemResource ? GpuMemHint(text) : "";
    if (hint.empty()) hint = Cat({"no GPU has that many; ", name, " counts whole units"});
    r.Fail(f, Cat({Quote(text), " is ", std::to_string(*n), " units, too many for ", name}), hint);
  }
  return *n;
}

std::vector<ResourceEntry> Resources(FieldReader& r, const std::optional<Field>& f) {
  std::vector<ResourceEntry> entries;
  if (!f) return entries;
  for (const auto& [name, value] : r.Entries(*f)) {
    if (name.empty()) r.Fail(value, "empty resource name");
    if (value.node->kind != NodeKind::kScalar) {
      r.Fail(value, Cat({"expected a quantity, found ", r.Describe(*value.node)}),
             "write resources as name: quantity, e.g. cpu: 500m");
    }
    const std::string text(r.tree().Scalar(*value.node));
    entries.push_back(ResourceEntry{name, ResourceValue(r, value, name, text), text, value});
  }
  return entries;
}

ContainerResources ReadContainerResources(FieldReader& r, const Field& container, bool init) {
  ContainerResources out;
  if (init) {
    if (auto policy = r.Get(container, "restartPolicy")) {
      out.sidecar = r.Enum(*policy, {"Always"}, "a container restart policy") == "Always";
    }
  }
  std::optional<Field> resources = r.Get(container, "resources");
  if (!resources) return out;
  r.ExpectMap(*resources);
  const std::vector<ResourceEntry> requests = Resources(r, r.Get(*resources, "requests"));
  const std::vector<ResourceEntry> limits = Resources(r, r.Get(*resources, "limits"));
  for (const ResourceEntry& l : limits) out.limits[l.name] = l.value;
  for (const ResourceEntry& request : requests) {
    auto limit = std::find_if(limits.begin(), limits.end(),
                              [&](const ResourceEntry& l) { return l.name == request.name; });
    // The API server's validation (ValidateResourceRequirements), so a hand-written pending
    // pod means here what the cluster would accept.
    if (IsExtendedResource(request.name) && limit == limits.end()) {
      r.Fail(request.field, request.name + " is requested without a limit",
             "extended resources need resources.limits, equal to the request");
    }
    if (limit != limits.end()) {
      if (IsExtendedResource(request.name) && request.value != limit->value) {
        r.Fail(request.field,
               Cat({Quote(request.text), " differs from the limit ", Quote(limit->text)}),
               "extended resources cannot be over-committed: requests must equal limits");
      }
      if (request.value > limit->value) {
        r.Fail(request.field,
               Cat({Quote(request.text), " is more than the limit ", Quote(limit->text)}),
               "a request must not exceed its limit");
      }
    }
    out.requests[request.name] = request.value;
  }
  // Defaulting: a resource with only a limit is requested at the limit.
  for (const ResourceEntry& l : limits) out.requests.emplace(l.name, l.value);
  return out;
}

ResourceList PodRequests(const std::vector<ContainerResources>& containers,
                         const std::vector<ContainerResources>& init_containers,
                         const ResourceList& overhead, const ResourceList& defaults) {
  auto with_defaults = [&](const ResourceList& r) {
    ResourceList out = r;
    for (const auto& [name, amount] : defaults) out.emplace(name, amount);
    return out;
  };
  auto add = [](ResourceList& to, const ResourceList& r) {
    for (const auto& [name, amount] : r) to[name] += amount;
  };
  auto max_into = [](ResourceList& to, const ResourceList& r) {
    for (const auto& [name, amount] : r) {
      auto [it, inserted] = to.emplace(name, amount);
      if (!inserted) it->second = std::max(it->second, amount);
    }
  };
  ResourceList requests;
  for (const ContainerResources& c : containers) add(requests, with_defaults(c.requests));
  ResourceList sidecars;
  ResourceList init_max;
  for (const ContainerResources& c : init_containers) {
    ResourceList r = with_defaults(c.requests);
    if (c.sidecar) {
      add(requests, r);
      add(sidecars, r);
      r = sidecars;
    } else {
      add(r, sidecars);
    }
    max_into(init_max, r);
  }
  max_into(requests, init_max);
  add(requests, overhead);
  return requests;
}

}  // namespace knobsim::kube

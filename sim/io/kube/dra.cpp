// The Dynamic Resource Allocation kinds (resource.k8s.io/v1 and v1beta2, which share a shape;
// v1beta1, whose devices sit under `basic` and whose requests carry the exact fields inline):
// ResourceSlice, DeviceClass, ResourceClaim, ResourceClaimTemplate, and a pod's resourceClaims.
// Validation follows the API server's (pkg/apis/resource/validation/validation.go) where a wrong
// value would change what the allocator does; names are qualified as the API defines them.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/io/kube/kinds.h"
#include "sim/io/kube/kube_text.h"
#include "sim/io/kube/selectors.h"
#include "sim/quantity.h"

namespace knobsim::kube {
namespace {

// ResourceSliceMaxDevices (128; 64 with advanced features: counters, taints, per-device nodes).
constexpr size_t kMaxDevicesPerSlice = 128;
// AllocationResultsMaxSize: a claim's requests and its results.
constexpr size_t kMaxRequests = 32;

int64_t Milli(FieldReader& r, const Field& f) {
  const std::string text = r.String(f);
  const std::optional<int64_t> milli = ParseQuantityMilli(text);
  if (!milli) r.Fail(f, Cat({Quote(text), " is not a quantity"}), "e.g. 1, 40Gi or 500m");
  return *milli;
}

// A QualifiedName: `domain/id`, or `id` in the driver's domain.
std::string Qualified(FieldReader& r, const Field& at, const std::string& name,
                      const std::string& driver) {
  if (name.empty()) r.Fail(at, "an empty attribute or capacity name");
  return name.find('/') == std::string::npos ? Cat({driver, "/", name}) : name;
}

// A FullyQualifiedName (constraints): `domain/id`, the domain required.
std::string FullyQualified(FieldReader& r, const Field& f) {
  const std::string name = r.String(f);
  const size_t slash = name.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == name.size())
    r.Fail(f, Cat({Quote(name), " is not a fully qualified name"}),
           "a constraint names `<domain>/<id>`, e.g. gpu.nvidia.com/uuid");
  return name;
}

std::map<std::string, int64_t> Counters(FieldReader& r, const std::optional<Field>& f) {
  std::map<std::string, int64_t> out;
  if (!f) return out;
  for (const auto& [name, counter] : r.Entries(*f)) {
    r.ExpectMap(counter);
    out[name] = Milli(r, r.Require(counter, "value"));
  }
  return out;
}

DraNodeSelector NodeSelectorOf(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  DraNodeSelector terms;
  for (const Field& term : r.Items(r.Require(f, "nodeSelectorTerms")))
    terms.push_back(ReadNodeSelectorTerm(r, term));
  if (terms.empty()) r.Fail(f, "a node selector needs at least one term");
  return terms;
}

// DeviceAttribute: exactly one of int, bool, string, version, ints, bools, strings, versions.
DraAttribute Attribute(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  DraAttribute a;
  int set = 0;
  for (const auto& [key, value] : r.Entries(f)) {
    ++set;
    const bool list = key == "ints" || key == "bools" || key == "strings" || key == "versions";
    a.list = list;
    const std::vector<Field> items = list ? r.Items(value) : std::vector<Field>{value};
    if (key == "int" || key == "ints") {
      a.kind = DraAttribute::Kind::kInt;
      for (const Field& v : items)
        a.ints.push_back(
            r.Int(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
    } else if (key == "bool" || key == "bools") {
      a.kind = DraAttribute::Kind::kBool;
      for (const Field& v : items) a.ints.push_back(r.Bool(v) ? 1 : 0);
    } else if (key == "string" || key == "strings" || key == "version" || key == "versions") {
      a.kind = key[0] == 'v' ? DraAttribute::Kind::kVersion : DraAttribute::Kind::kString;
      for (const Field& v : items) a.strings.push_back(r.String(v));
    } else {
      r.Fail(value, Cat({"unknown attribute type ", Backquote(key)}),
             "one of int, bool, string, version (or ints, bools, strings, versions)");
    }
  }
  if (set != 1) r.Fail(f, "an attribute has exactly one value (int, bool, string or version)");
  return a;
}

DraCapacityPolicy CapacityPolicy(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  DraCapacityPolicy p;
  if (auto d = r.Get(f, "default")) p.default_milli = Milli(r, *d);
  if (auto values = r.Get(f, "validValues")) {
    for (const Field& v : r.Items(*values)) p.valid_values_milli.push_back(Milli(r, v));
    std::sort(p.valid_values_milli.begin(), p.valid_values_milli.end());
  }
  if (auto range = r.Get(f, "validRange")) {
    r.ExpectMap(*range);
    p.has_range = true;
    if (auto v = r.Get(*range, "min")) p.min_milli = Milli(r, *v);
    if (auto v = r.Get(*range, "max")) p.max_milli = Milli(r, *v);
    if (auto v = r.Get(*range, "step")) p.step_milli = Milli(r, *v);
  }
  if (!p.valid_values_milli.empty() && p.has_range)
    r.Fail(f, "validValues and validRange are both set", "a request policy takes one of them");
  return p;
}

std::vector<DraDeviceTaint> Taints(FieldReader& r, const std::optional<Field>& f) {
  std::vector<DraDeviceTaint> out;
  if (!f) return out;
  for (const Field& t : r.Items(*f)) {
    r.ExpectMap(t);
    DraDeviceTaint taint;
    taint.key = r.String(r.Require(t, "key"));
    if (auto v = r.Get(t, "value")) taint.value = r.String(*v);
    taint.effect = r.Enum(r.Require(t, "effect"), {"None", "NoSchedule", "NoExecute"},
                          "a device taint effect");
    out.push_back(std::move(taint));
  }
  return out;
}

std::vector<DraToleration> Tolerations(FieldReader& r, const std::optional<Field>& f) {
  std::vector<DraToleration> out;
  if (!f) return out;
  for (const Field& t : r.Items(*f)) {
    r.ExpectMap(t);
    DraToleration tol;
    if (auto v = r.Get(t, "key")) tol.key = r.String(*v);
    if (auto v = r.Get(t, "operator"))
      tol.op = r.Enum(*v, {"Exists", "Equal"}, "a toleration operator");
    if (auto v = r.Get(t, "value")) tol.value = r.String(*v);
    if (tol.op == "Exists" && !tol.value.empty())
      r.Fail(t, "a toleration with operator Exists has no value");
    if (auto v = r.Get(t, "effect"))
      tol.effect = r.Enum(*v, {"", "None", "NoSchedule", "NoExecute"}, "a taint effect");
    if (auto v = r.Get(t, "tolerationSeconds"))
      tol.toleration_seconds =
          r.Int(*v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    out.push_back(std::move(tol));
  }
  return out;
}

// The device's fields (v1: on the device; v1beta1: under `basic`).
DraDevice Device(FieldReader& r, const Field& f, const std::string& driver, bool per_device_nodes) {
  r.ExpectMap(f);
  DraDevice d;
  d.name = r.String(r.Require(f, "name"));
  if (d.name.empty()) r.Fail(f, "a device needs a name");
  Field body = f;
  if (auto basic = r.Get(f, "basic")) body = *basic;
  r.ExpectMap(body);
  if (auto attributes = r.Get(body, "attributes")) {
    for (const auto& [name, value] : r.Entries(*attributes))
      d.attributes[Qualified(r, value, name, driver)] = Attribute(r, value);
  }
  if (auto capacity = r.Get(body, "capacity")) {
    for (const auto& [name, value] : r.Entries(*capacity)) {
      r.ExpectMap(value);
      DraCapacity c;
      c.milli = Milli(r, r.Require(value, "value"));
      if (auto policy = r.Get(value, "requestPolicy"))
        c.request_policy = CapacityPolicy(r, *policy);
      d.capacity[Qualified(r, value, name, driver)] = c;
    }
  }
  if (auto consumes = r.Get(body, "consumesCounters")) {
    for (const Field& c : r.Items(*consumes)) {
      r.ExpectMap(c);
      d.consumes_counters.push_back(
          {r.String(r.Require(c, "counterSet")), Counters(r, r.Get(c, "counters"))});
    }
  }
  int placements = 0;
  if (auto v = r.Get(body, "nodeName")) {
    d.node_name = r.String(*v);
    ++placements;
  }
  if (auto v = r.Get(body, "nodeSelector")) {
    d.node_selector = NodeSelectorOf(r, *v);
    ++placements;
  }
  if (auto v = r.Get(body, "allNodes"); v && r.Bool(*v)) {
    d.all_nodes = true;
    ++placements;
  }
  if (per_device_nodes != (placements == 1))
    r.Fail(f, per_device_nodes ? "under perDeviceNodeSelection each device sets exactly one of "
                                 "nodeName, nodeSelector and allNodes"
                               : "a device sets nodeName, nodeSelector or allNodes only under the "
                                 "slice's perDeviceNodeSelection");
  d.taints = Taints(r, r.Get(body, "taints"));
  if (auto v = r.Get(body, "bindsToNode")) d.binds_to_node = r.Bool(*v);
  d.binding_conditions = r.StringList(r.Get(body, "bindingConditions"));
  d.binding_failure_conditions = r.StringList(r.Get(body, "bindingFailureConditions"));
  if (auto v = r.Get(body, "allowMultipleAllocations")) d.allow_multiple_allocations = r.Bool(*v);
  return d;
}

// Scalars keep their text: JSON numbers and literals as such, anything else a string.
nlohmann::json TreeToJson(const FieldReader& r, const TreeNode& node) {
  const DocumentTree& tree = r.tree();
  switch (node.kind) {
    case NodeKind::kNull:
      return nullptr;
    case NodeKind::kScalar: {
      const std::string text(tree.Scalar(node));
      if (text == "true") return true;
      if (text == "false") return false;
      if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-')) {
        const nlohmann::json number = nlohmann::json::parse(text, nullptr, /*exceptions=*/false);
        if (number.is_number()) return number;
      }
      return text;
    }
    case NodeKind::kSequence: {
      nlohmann::json out = nlohmann::json::array();
      for (size_t i = 0; i < node.size; ++i) out.push_back(TreeToJson(r, tree.Item(node, i)));
      return out;
    }
    case NodeKind::kMap: {
      nlohmann::json out = nlohmann::json::object();
      for (size_t i = 0; i < node.size; ++i)
        out[std::string(tree.Scalar(tree.Key(node, i)))] = TreeToJson(r, tree.Value(node, i));
      return out;
    }
  }
  return nullptr;
}

// DeviceConfiguration entries (class or claim config): the opaque ones.
std::vector<DraOpaqueConfig> Configs(FieldReader& r, const std::optional<Field>& f) {
  std::vector<DraOpaqueConfig> out;
  if (!f) return out;
  for (const Field& c : r.Items(*f)) {
    r.ExpectMap(c);
    DraOpaqueConfig config;
    config.requests = r.StringList(r.Get(c, "requests"));
    const Field opaque = r.Require(c, "opaque");
    r.ExpectMap(opaque);
    config.driver = r.String(r.Require(opaque, "driver"));
    config.parameters_json = TreeToJson(r, *r.Require(opaque, "parameters").node).dump();
    out.push_back(std::move(config));
  }
  return out;
}

std::vector<std::string> Selectors(FieldReader& r, const std::optional<Field>& f) {
  std::vector<std::string> out;
  if (!f) return out;
  for (const Field& s : r.Items(*f)) {
    r.ExpectMap(s);
    const Field cel = r.Require(s, "cel");
    r.ExpectMap(cel);
    out.push_back(r.String(r.Require(cel, "expression")));
  }
  return out;
}

// ExactDeviceRequest (v1 `exactly`, v1beta1 the request itself) or a DeviceSubRequest.
DraExactRequest Exact(FieldReader& r, const Field& f, const std::string& name, bool sub) {
  DraExactRequest e;
  e.name = name;
  e.device_class_name = r.String(r.Require(f, "deviceClassName"));
  if (e.device_class_name.empty()) r.Fail(f, "deviceClassName is empty");
  e.selectors = Selectors(r, r.Get(f, "selectors"));
  if (auto mode = r.Get(f, "allocationMode"))
    e.all = r.Enum(*mode, {"ExactCount", "All"}, "an allocation mode") == "All";
  if (auto count = r.Get(f, "count")) {
    if (e.all) r.Fail(*count, "count is set with allocationMode All");
    e.count = r.Int(*count, 1, std::numeric_limits<int64_t>::max());
  }
  if (auto admin = r.Get(f, "adminAccess")) {
    if (sub) r.Fail(*admin, "a sub-request has no adminAccess");
    e.admin_access = r.Bool(*admin);
  }
  e.tolerations = Tolerations(r, r.Get(f, "tolerations"));
  if (auto capacity = r.Get(f, "capacity")) {
    r.ExpectMap(*capacity);
    if (auto requests = r.Get(*capacity, "requests")) {
      // A QualifiedName: `<domain>/<id>`, or `<id>` in the device's driver's domain (HAMi's
      // DRA driver's claims ask `cores` and `memory` so); kept as written, the allocator
      // matches both forms (consumable_capacity.h).
      for (const auto& [cap, value] : r.Entries(*requests))
        e.capacity_requests_milli[cap] = Milli(r, value);
    }
  }
  return e;
}

DraClaimSpec ClaimSpec(FieldReader& r, const Field& spec, bool v1beta1) {
  r.ExpectMap(spec);
  DraClaimSpec out;
  const std::optional<Field> devices = r.Get(spec, "devices");
  if (!devices) return out;
  r.ExpectMap(*devices);
  if (auto requests = r.Get(*devices, "requests")) {
    const std::vector<Field> items = r.Items(*requests);
    if (items.size() > kMaxRequests)
      r.Fail(*requests, Cat({std::to_string(items.size()), " requests, more than the API's ",
                             std::to_string(kMaxRequests)}));
    for (const Field& q : items) {
      r.ExpectMap(q);
      DraRequest request;
      request.name = r.String(r.Require(q, "name"));
      if (request.name.empty()) r.Fail(q, "a request needs a name");
      if (auto first = r.Get(q, "firstAvailable")) {
        for (const Field& s : r.Items(*first)) {
          r.ExpectMap(s);
          request.first_available.push_back(
              Exact(r, s, r.String(r.Require(s, "name")), /*sub=*/true));
        }
        if (request.first_available.empty()) r.Fail(*first, "firstAvailable is empty");
      }
      if (auto exactly = r.Get(q, "exactly")) {
        r.ExpectMap(*exactly);
        request.exactly = Exact(r, *exactly, request.name, /*sub=*/false);
      } else if (v1beta1 && r.Get(q, "deviceClassName")) {
        request.exactly = Exact(r, q, request.name, /*sub=*/false);
      }
      if (request.exactly.has_value() == !request.first_available.empty())
        r.Fail(q, "a request sets exactly one of `exactly` and `firstAvailable`");
      out.requests.push_back(std::move(request));
    }
  }
  if (auto constraints = r.Get(*devices, "constraints")) {
    for (const Field& c : r.Items(*constraints)) {
      r.ExpectMap(c);
      DraConstraint constraint;
      constraint.requests = r.StringList(r.Get(c, "requests"));
      const std::optional<Field> match = r.Get(c, "matchAttribute");
      const std::optional<Field> distinct = r.Get(c, "distinctAttribute");
      if (match.has_value() == distinct.has_value())
        r.Fail(c, "a constraint sets exactly one of matchAttribute and distinctAttribute");
      if (match) constraint.match_attribute = FullyQualified(r, *match);
      if (distinct) constraint.distinct_attribute = FullyQualified(r, *distinct);
      out.constraints.push_back(std::move(constraint));
    }
  }
  out.config = Configs(r, r.Get(*devices, "config"));
  return out;
}

bool IsV1beta1(ObjectReader& r, const Field& object) {
  const std::optional<Field> api = r.Get(object, "apiVersion");
  return api && r.String(*api) == "resource.k8s.io/v1beta1";
}

DraAllocation Allocation(FieldReader& r, const Field& f) {
  r.ExpectMap(f);
  DraAllocation a;
  if (auto devices = r.Get(f, "devices")) {
    r.ExpectMap(*devices);
    if (auto results = r.Get(*devices, "results")) {
      for (const Field& res : r.Items(*results)) {
        r.ExpectMap(res);
        DraDeviceResult d;
        d.request = r.String(r.Require(res, "request"));
        d.driver = r.String(r.Require(res, "driver"));
        d.pool = r.String(r.Require(res, "pool"));
        d.device = r.String(r.Require(res, "device"));
        if (auto v = r.Get(res, "adminAccess")) d.admin_access = r.Bool(*v);
        if (auto v = r.Get(res, "shareID")) d.share_id = r.String(*v);
        if (auto consumed = r.Get(res, "consumedCapacity")) {
          for (const auto& [cap, value] : r.Entries(*consumed))
            d.consumed_capacity_milli[cap] = Milli(r, value);
        }
        d.tolerations = Tolerations(r, r.Get(res, "tolerations"));
        a.results.push_back(std::move(d));
      }
    }
  }
  if (auto selector = r.Get(f, "nodeSelector")) a.node_selector = NodeSelectorOf(r, *selector);
  return a;
}

}  // namespace

ResourceSliceSpec ReadResourceSlice(ObjectReader& r, const Field& object) {
  ResourceSliceSpec s;
  const ObjectMeta meta = ReadObjectMetaFields(r, object, "ResourceSlice", /*namespaced=*/false);
  s.name = meta.name;
  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  s.driver = r.String(r.Require(spec, "driver"));
  if (s.driver.empty()) r.Fail(spec, "the slice's driver is empty");
  const Field pool = r.Require(spec, "pool");
  r.ExpectMap(pool);
  s.pool = r.String(r.Require(pool, "name"));
  if (s.pool.empty()) r.Fail(pool, "the pool's name is empty");
  s.pool_generation = r.Int(r.Require(pool, "generation"), 0, std::numeric_limits<int64_t>::max());
  s.pool_slice_count =
      r.Int(r.Require(pool, "resourceSliceCount"), 1, std::numeric_limits<int64_t>::max());
  int placements = 0;
  if (auto v = r.Get(spec, "nodeName"); v && !r.String(*v).empty()) {
    s.node_name = r.String(*v);
    ++placements;
  }
  if (auto v = r.Get(spec, "nodeSelector")) {
    s.node_selector = NodeSelectorOf(r, *v);
    ++placements;
  }
  if (auto v = r.Get(spec, "allNodes"); v && r.Bool(*v)) {
    s.all_nodes = true;
    ++placements;
  }
  if (auto v = r.Get(spec, "perDeviceNodeSelection"); v && r.Bool(*v)) {
    s.per_device_node_selection = true;
    ++placements;
  }
  if (placements != 1)
    r.Fail(spec,
           "a slice sets exactly one of nodeName, nodeSelector, allNodes and "
           "perDeviceNodeSelection");
  if (auto counters = r.Get(spec, "sharedCounters")) {
    for (const Field& c : r.Items(*counters)) {
      r.ExpectMap(c);
      s.shared_counters.push_back(
          {r.String(r.Require(c, "name")), Counters(r, r.Get(c, "counters"))});
    }
  }
  if (auto devices = r.Get(spec, "devices")) {
    const std::vector<Field> items = r.Items(*devices);
    if (items.size() > kMaxDevicesPerSlice)
      r.Fail(*devices,
             Cat({std::to_string(items.size()), " devices in one slice, more than the API's ",
                  std::to_string(kMaxDevicesPerSlice)}));
    for (const Field& d : items) s.devices.push_back(Device(r, d, s.driver, s.per_device_node_selection));
    // Counter sets live in slices of their own; a device's set may be in any slice of the pool
    // (the allocator finds a pool whose devices name a missing set invalid, as upstream does).
    if (!s.devices.empty() && !s.shared_counters.empty())
      r.Fail(*devices, "a slice sets devices or sharedCounters, not both",
             "publish the counter sets in a slice of their own in the same pool");
  }
  return s;
}

DeviceClassSpec ReadDeviceClass(ObjectReader& r, const Field& object) {
  DeviceClassSpec c;
  c.name = ReadObjectMetaFields(r, object, "DeviceClass", /*namespaced=*/false).name;
  if (auto spec = r.Get(object, "spec")) {
    r.ExpectMap(*spec);
    c.selectors = Selectors(r, r.Get(*spec, "selectors"));
    c.config = Configs(r, r.Get(*spec, "config"));
    if (auto v = r.Get(*spec, "extendedResourceName")) c.extended_resource_name = r.String(*v);
  }
  return c;
}

ResourceClaimSpec ReadResourceClaim(ObjectReader& r, const Field& object) {
  ResourceClaimSpec c;
  const ObjectMeta meta = ReadObjectMeta(r, object, "ResourceClaim", c);
  c.spec = ClaimSpec(r, r.Require(object, "spec"), IsV1beta1(r, object));
  for (const OwnerReference& o : ReadOwnerReferences(r, meta)) {
    if (o.kind == "Pod" && o.controller) {
      c.owner_pod = o.name;
      c.owner_pod_uid = o.uid;
    }
  }
  c.deleting = r.Get(meta.field, "deletionTimestamp").has_value();
  if (auto status = r.Get(object, "status")) {
    r.ExpectMap(*status);
    if (auto allocation = r.Get(*status, "allocation")) c.allocation = Allocation(r, *allocation);
    if (auto reserved = r.Get(*status, "reservedFor")) {
      for (const Field& f : r.Items(*reserved)) {
        r.ExpectMap(f);
        DraConsumer consumer;
        consumer.resource = r.String(r.Require(f, "resource"));
        consumer.name = r.String(r.Require(f, "name"));
        if (auto uid = r.Get(f, "uid")) consumer.uid = r.String(*uid);
        c.reserved_for.push_back(std::move(consumer));
      }
    }
  }
  return c;
}

ResourceClaimTemplateSpec ReadResourceClaimTemplate(ObjectReader& r, const Field& object) {
  ResourceClaimTemplateSpec t;
  ReadObjectMeta(r, object, "ResourceClaimTemplate", t);
  const Field spec = r.Require(object, "spec");
  r.ExpectMap(spec);
  t.spec = ClaimSpec(r, r.Require(spec, "spec"), IsV1beta1(r, object));
  return t;
}

void ReadPodResourceClaims(ObjectReader& r, const Field& spec, PodSpec& pod) {
  if (auto claims = r.Get(spec, "resourceClaims")) {
    for (const Field& f : r.Items(*claims)) {
      r.ExpectMap(f);
      PodResourceClaim c;
      c.name = r.String(r.Require(f, "name"));
      if (auto v = r.Get(f, "resourceClaimName")) c.resource_claim_name = r.String(*v);
      if (auto v = r.Get(f, "resourceClaimTemplateName"))
        c.resource_claim_template_name = r.String(*v);
      if (c.resource_claim_name.empty() == c.resource_claim_template_name.empty())
        r.Fail(f,
               "a pod's resource claim sets exactly one of resourceClaimName and "
               "resourceClaimTemplateName");
      pod.resource_claims.push_back(std::move(c));
    }
  }
}

void ReadPodResourceClaimStatuses(ObjectReader& r, const Field& status, PodSpec& pod) {
  if (auto statuses = r.Get(status, "resourceClaimStatuses")) {
    for (const Field& f : r.Items(*statuses)) {
      r.ExpectMap(f);
      const std::string name = r.String(r.Require(f, "name"));
      const std::optional<Field> claim = r.Get(f, "resourceClaimName");
      for (PodResourceClaim& c : pod.resource_claims) {
        if (c.name != name) continue;
        if (claim) {
          c.generated_claim_name = r.String(*claim);
        } else {
          c.no_claim_made = true;
        }
      }
    }
  }
}

}  // namespace knobsim::kube

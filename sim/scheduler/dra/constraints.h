// A claim's device constraints while the allocator tries devices: matchAttribute (every device
// of the named requests has the same value of an attribute) and distinctAttribute (no two have
// the same value). Upstream: k8s.io/dynamic-resource-allocation structured/internal/incubating
// (matchAttributeConstraint in allocator_incubating.go, distinctAttributeConstraint in
// constraint.go).
//
// Constraints are monotonic: once a device is refused, more devices never make it acceptable,
// which lets the search stop early. Each successful Add is undone by exactly one Remove with the
// same arguments when the search backtracks.
//
// Values compare by kind: string, int, bool and version (semantic versions are minimal, so
// equal text is equal versions). A list-valued attribute (DRAListTypeAttributes, which only
// upstream's experimental allocator implements) or one without a value is of unknown type: it
// is accepted as the first device's and refused after, as upstream's incubating allocator does.
//
// Kept from upstream on purpose: distinctAttribute remembers one value per request name, so the
// devices of one request with count > 1 are only checked against the last one kept for it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/kube_dra.h"

namespace knobsim::dra {

// The attribute `name` (fully qualified) of a device of `driver`, or nullptr. A name in the
// driver's domain also finds an attribute stored without the domain.
const DraAttribute* LookupAttribute(const DraDevice& device, std::string_view driver,
                                    const std::string& name);

class DeviceConstraint {
 public:
  // `spec` must outlive this. Exactly one of its attributes is set (checked by the caller).
  explicit DeviceConstraint(const DraConstraint& spec);

  // Whether the device may join (then it counts as joined). `request` is the request's name,
  // `subrequest` the chosen firstAvailable entry's or "".
  bool Add(std::string_view request, std::string_view subrequest, const DraDevice& device,
           std::string_view driver);
  void Remove(std::string_view request, std::string_view subrequest);

 private:
  bool Applies(std::string_view request, std::string_view subrequest) const;
  bool MatchesFirst(const DraAttribute& value) const;
  bool DistinctFromKept(const DraAttribute& value) const;

  const DraConstraint* spec_;
  bool distinct_;
  int num_devices_ = 0;
  const DraAttribute* first_ = nullptr;  // matchAttribute: the first device's value
  // distinctAttribute: the value kept per request name.
  std::vector<std::pair<std::string_view, const DraAttribute*>> kept_;
};

}  // namespace knobsim::dra

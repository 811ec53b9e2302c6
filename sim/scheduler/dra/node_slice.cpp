#include "sim/scheduler/dra/node_slice.h"

#include <utility>

namespace knobsim::dra {

ResourceSliceSpec NodeSlice(const std::string& node, const std::string& driver) {
  ResourceSliceSpec slice;
  slice.name = node + "-" + driver;
  slice.driver = driver;
  slice.pool = node;
  slice.node_name = node;
  return slice;
}

DraAttribute StringAttribute(std::string value) {
  DraAttribute a;
  a.kind = DraAttribute::Kind::kString;
  a.strings = {std::move(value)};
  return a;
}

DraAttribute IntAttribute(int64_t value) {
  DraAttribute a;
  a.kind = DraAttribute::Kind::kInt;
  a.ints = {value};
  return a;
}

}  // namespace knobsim::dra

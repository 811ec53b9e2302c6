// Text forms the export writes: RFC 3339 timestamps, base64url and Kubernetes quantities.
//
// Contract: pure functions of their arguments, free of locale and time zone.
// Internal to tools/gen-export.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace knobsim::gen_export {

// RFC 3339 UTC ("2024-06-01T00:00:00Z") from Unix seconds.
std::string Rfc3339(int64_t t);
// Unpadded base64url (RFC 4648 §5), as a JWT's parts are written.
std::string Base64Url(std::string_view bytes);
// CPU in cores when whole ("2"), else millicores ("250m").
std::string Cpu(int64_t milli);
// Memory in Gi when whole ("4Gi"), else Mi ("300Mi").
std::string Mem(int64_t mib);

}  // namespace knobsim::gen_export

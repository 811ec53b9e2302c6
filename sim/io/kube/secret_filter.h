// The secret filter: what of an export probably holds a credential, so the reader never stores
// or shows it (kube_reader.h, Privacy). Pure functions of the text, no state.
#pragma once

#include <string_view>

namespace knobsim {

// kubectl apply keeps the whole manifest in this annotation, env values included; nothing here
// needs it, so it is never stored (and, being on most objects, never warned about either).
inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

// Whether an annotation (or any key/value pair from a manifest) probably holds a credential:
// the key names one (token, secret, password, passwd, credential, key, auth), or the value
// holds something shaped like one wherever it sits in the text — a JWT, an AWS access key id
// (AKIA…/ASIA…), an `sk-`/`sk_` API key, a GitHub or Slack token, a PEM private key, a URL with
// a password — or the whole value is a long base64 or hex blob (32+ characters with a run of 24
// letters and digits; UUIDs are identifiers, not blobs). Tuned to miss no credential at the
// price of dropping a checksum now and then; "true", "false" and empty values are never secret.
bool LooksLikeSecret(std::string_view key, std::string_view value);

}  // namespace knobsim

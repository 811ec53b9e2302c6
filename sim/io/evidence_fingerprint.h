// EvidenceFingerprint: a short name for "this export and these metrics", so that what one
// command learned about them (a backtest's scores) can be found again by another (a what-if on
// the scenario imported from them; docs/backtest.md "Found again").
//
// It hashes what the evidence says, not the bytes it came in: the nodes' names, each pod's
// namespace, name and node, and every metric series' labels, timestamps and values. The same
// export as JSON or YAML, files in any order, or with whitespace changed, has the same
// fingerprint; another pod, another node or one sample more gives another. Not a security
// hash: it names, it does not protect.
#pragma once

#include <span>
#include <string>

#include "sim/io/prom_reader.h"
#include "sim/kube_objects.h"

namespace knobsim {

// "kf1-" and 16 hexadecimal digits (the 1 names this rule, so a later rule cannot collide).
std::string EvidenceFingerprint(const KubeObjects& objects, std::span<const PromResult> results);

// Whether `text` has the form EvidenceFingerprint returns (readers check a fingerprint before
// building a file name from it).
bool IsEvidenceFingerprint(const std::string& text);

}  // namespace knobsim

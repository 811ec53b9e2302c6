// CheckResultsDocument: a knobsim.results/v1 document (docs/results.md) read back — by
// `knobsim diff` and `knobsim report` — checked against the field lists its writer walks
// (sim/io/result_fields.h), so that a document that is not what knobsim writes is refused with
// the file, line and field, never read as zeros, "unknown" or "no difference".
//
// What it checks: the schema (knobsim.results/v1), the run's settings, a non-empty array of
// variants with unique names; in each variant every workload, card and pod field of its type
// and range, unique workload ids, card node/index pairs and pod names, the `per_replication`
// arrays (one value per replication) and `ci95` half-widths (numbers >= 0 or null). Keys it
// does not know are allowed: a later minor version may add some. The timeline, the what-if
// verdict and the upgrade sections are the report's to read and are not checked here.
#pragma once

#include "sim/input_error.h"
#include "sim/io/json_document.h"

namespace knobsim {

Status CheckResultsDocument(const JsonDocument& doc);

}  // namespace knobsim

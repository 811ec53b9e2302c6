// The HTML report: any knobsim results document — a capacity plan (knobsim.plan/v1) or a run
// set from `knobsim run` / `knobsim whatif` (knobsim.results/v1) — as one self-contained page a
// person opens in a browser, offline (docs/report.md).
//
// Self-contained means: inline CSS, charts as inline SVG drawn by knobsim (svg_chart.h), no
// script, no external URL of any kind (no CDN, no web font, no image link). Every string taken
// from the document is HTML-escaped, since names come from user files. The page is a pure
// function of the document: the same document gives the same bytes.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/input_error.h"

namespace knobsim {

// The page for `doc`, or an error that is only a message: "not a knobsim results document"
// when `schema` is none of the known ones, or what makes a document of a known schema unusable
// (e.g. its "options" is not an array). Missing optional fields leave gaps in the page.
Expected<std::string> RenderReport(const nlohmann::ordered_json& doc);

// RenderReport written to `path` atomically (a reader never sees half a page, a failed write
// leaves the old file); a failure that is only RenderReport's message when the document cannot be
// rendered, the file's error when it cannot be written.
Status WriteReportFile(const nlohmann::ordered_json& doc, const std::string& path);

}  // namespace knobsim

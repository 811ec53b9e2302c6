// Streaming a JSON export larger than the input limit (docs/limits.md "Input files"): the file is
// read in chunks and cut into *units* that each parse on their own — every element of a
// top-level object's `items` array (kubectl's `kind: List` envelope), then the envelope itself
// with its items left out, or a whole top-level document that has no `items` — so that memory
// holds one unit's text and tree at a time, not the file (a 50 000-pod export is ~700 MB of
// text; parsed whole it would take about three times that).
//
// Each unit's text keeps the lines of the file: a unit knows the line it starts on, and the
// envelope's items are replaced by as many line breaks as they spanned, so a value after them
// (kubectl writes `kind` and `metadata` after `items`) keeps its line too. The cut checks the
// structure between units (brackets that match, a `,` between items, the text not ending inside
// a value); each unit's own syntax is the JSON parser's to check (sim/io/document_tree.h).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "sim/input_error.h"

namespace knobsim {

struct JsonUnit {
  const std::string& text;
  int first_line = 1;  // the file's line of the unit's first byte
  // An element of a top-level `items` array: its index there (-1: an envelope or a document),
  // and whether the array belongs to the envelope that follows as the next envelope unit.
  long item = -1;
  bool envelope = false;  // the envelope of items just streamed (its `items` left empty)
};

// Reads `path` (a regular file; `file` names it in errors) unit by unit, in text order, calling
// `on_unit` for each; stops at the first error, its own (syntax between units, a unit larger than
// `max_unit_bytes`, a read failure) or the one `on_unit` returns.
Status StreamJsonUnits(const std::string& path, const std::string& file, size_t max_unit_bytes,
                       const std::function<Status(const JsonUnit&)>& on_unit);

}  // namespace knobsim

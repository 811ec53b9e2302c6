// Streaming a YAML export larger than the input limit (docs/limits.md "Input files"), as
// json_stream.h streams a JSON one: the file is read a line at a time and cut into *units* that
// each parse on their own, so that memory holds one unit's text and tree at a time.
//
// The cut follows the shape `kubectl get -o yaml` writes (go-yaml's block style): in each
// `---`-separated document, a top-level `items:` line is followed by its items, each starting
// with `- ` at column 0 and going on with indented, blank or comment lines. Every item is a
// unit (its `-` turned into a space, so the unit is the item's mapping at the same columns: the
// same values and lines as inside the list); then the document's envelope, its `items:` made
// `items: []` and its items' lines left empty so that `kind` and `metadata` keep their lines. A
// document without a top-level `items:` is one unit. Anything the cut does not recognise stays
// in its unit, whose own parse (sim/io/document_tree.h) then words what is wrong; anchors are
// per unit, so an alias of an anchor in another item is an error (kubectl writes none).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "sim/input_error.h"

namespace knobsim {

struct YamlUnit {
  const std::string& text;
  int first_line = 1;     // the file's line of the unit's first line
  long item = -1;         // the index of an item in its document's `items` (-1: not an item)
  bool envelope = false;  // the envelope of items just streamed (its `items` left empty)
};

// Reads `path` (a regular file; `file` names it in errors) unit by unit, in text order, calling
// `on_unit` for each; stops at the first error, its own (a unit larger than `max_unit_bytes`, a
// second top-level `items:` in one document, a read failure) or the one `on_unit` returns.
Status StreamYamlUnits(const std::string& path, const std::string& file, size_t max_unit_bytes,
                       const std::function<Status(const YamlUnit&)>& on_unit);

}  // namespace knobsim

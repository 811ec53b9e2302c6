// The block-YAML fast path of the document tree: the shape `kubectl get -o yaml` writes (block
// mappings and sequences, indentless sequences under a key, plain, single- and double-quoted
// scalars over one or several lines, `|` and `>` block scalars, `{}` and `[]`, comments,
// `---` between documents, LF or CRLF line ends) read straight into a DocumentTree at
// 5-10x yaml-cpp's speed (docs/benchmarks.md "import").
//
// It builds exactly the tree yaml-cpp's event parser builds (document_tree.cpp): the same
// scalars — folding, escapes, chomping and trailing-space rules are a port of yaml-cpp 0.7's
// ScanScalar, quirks included — the same nulls (`~`, `null`, `Null`, `NULL`, an empty value;
// an empty value has the line of the token after it, as yaml-cpp marks it), and each map and
// sequence on the line of its first key or dash. Anything else — anchors and aliases, tags,
// flow collections with content, complex keys, directives, `...`, tabs outside scalars,
// control characters, other encodings, any syntax error — is declined: the caller reads the
// whole text again with yaml-cpp, which also words every error. So the fast path decides speed
// only, never what a text means; document_tree_test.cpp pins the two readers to the same tree.
#pragma once

#include <string_view>

#include "sim/io/document_tree.h"

namespace knobsim {

// Reads `text` into `tree` (empty) when all of it is in the shape above, its lines counted from
// `first_line`; false when it is not, and then `tree` holds a partial read to discard.
bool ReadBlockYaml(std::string_view text, DocumentTree& tree, int first_line = 1);

}  // namespace knobsim

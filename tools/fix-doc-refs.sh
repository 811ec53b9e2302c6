#!/usr/bin/env bash
# fix-doc-refs.sh: points every citation of the design documents that used to live outside the
# repository (../shared/docs/DESIGN.md, semantics.md, validation.md, fgd-policies.md) at their
# homes in docs/ (issue 14, "the design in the repository").
#
#   tools/fix-doc-refs.sh [ROOT]           rewrite the citations under ROOT (default: the checkout)
#   tools/fix-doc-refs.sh --check [ROOT]   change nothing; list any old citation left, and
#                                          any docs/*.md citation of a section that does not exist
#
# The new documents keep the old section numbers (§1 items, §3.2, §5.4, rung 3, Appendix B, …),
# so the rewrite is a path change plus a spelling fix for the few citations written without §:
#
#   DESIGN.md §3.2 / DESIGN.md 3.2 / DESIGN.md section 1   ->  docs/design.md §3.2 / §3.2 / §1
#   semantics.md §5.4 / semantics.md 1.1                   ->  docs/semantics.md §5.4 / §1.1
#   validation.md rung 1                                   ->  docs/validation.md rung 1
#   fgd-policies.md §2.2                                   ->  docs/fgd-policies.md §2.2
#
# The forms found in the tree at 17e7f00 (≈140 files), all of which exist in the new documents
# (--check proves it for whatever the tree holds when it runs):
#   DESIGN.md        §1 (items 1, 2, 4, 5, 6), "section 1", §2, §3, §3.1, §3.2 ("3.2"), §3.3,
#                    §3.5, §4, §5
#   semantics.md     §1.1 ("1.1"), §1.1-1.2, §1.1-1.3, §1.2, §1.3, §1.5 ("§1.5 B"), §1.7 ("1.7"),
#                    §1.8 ("1.8"), §1.9, §2.4 ("2.4"), §3, §3.1-§3.7, §4.1, §4.1-4.2, §4.2, §4.3,
#                    §5.1-5.4, §5.2, §5.3, §5.3-5.4, §5.4, §5.5, §5.6, Appendix A item 1,
#                    Appendix B, and the bare name
#   validation.md    rung 1, rung 2, rung 3, rung 4, and the bare name
#   fgd-policies.md  §1, §1.1, §1.2, §2.1, §2.2, §2.4, §2.6, §2.7, §3 ("Node state"), §4,
#                    §4.1-§4.5, §5, §5.4, §6, §8, and the bare name
# Bare section numbers after a citation ("… cited as §", "§1.5 and §3") keep pointing at the same
# document, since the numbering is the old one.
#
# What it leaves alone, on purpose:
#   * tools/golden/expected/: recorded program output, compared byte for byte;
#   * the import's metric note "… the metric's unit is unconfirmed, semantics.md §1.9)" in
#     sim/io/prom_metrics.cpp and its test: it is program output (the imported scenario's comment,
#     in the golden files), so changing it is a behaviour change to make on its own, with the
#     golden files re-recorded;
#   * a name already behind a path (docs/semantics.md, ../shared/docs/DESIGN.md) or inside another
#     word.
# Running it twice changes nothing the second time.
set -euo pipefail

mode=rewrite
if [ "${1:-}" = "--check" ]; then
  mode=check
  shift
fi
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

# Files that may cite the documents: sources, scripts, docs, scenarios, notebooks.
files() {
  {
    find sim models tools bench docs scenarios notebooks -type f \
      \( -name '*.cpp' -o -name '*.h' -o -name '*.md' -o -name '*.yaml' -o -name '*.ipynb' \
         -o -name '*.sh' -o -name '*.py' -o -name '*.txt' -o -name 'bench-gate' \) \
      -not -path 'tools/golden/expected/*' -not -path '*/testdata/*' \
      -not -name 'fix-doc-refs.sh' 2>/dev/null
    [ -f README.md ] && echo README.md
  } | sort | xargs -r grep -lE '(DESIGN|semantics|validation|fgd-policies)\.md' || true
}

# A citation of an old name: not preceded by a path, a word or a dot.
B='(^|[^A-Za-z0-9_./-])'
# Lines of program output that keep their text (see above).
KEEP='unit is unconfirmed, semantics\.md'

rules=(
  # Spelling: a section number without §, or "section N".
  -e "/${KEEP}/!s/${B}DESIGN\\.md section ([0-9]+)/\\1DESIGN.md §\\2/g"
  -e "/${KEEP}/!s/${B}(DESIGN|semantics)\\.md ([0-9]+(\\.[0-9]+)?)([^0-9]|\$)/\\1\\2.md §\\3\\5/g"
  # Paths.
  -e "/${KEEP}/!s/${B}DESIGN\\.md/\\1docs\\/design.md/g"
  -e "/${KEEP}/!s/${B}semantics\\.md/\\1docs\\/semantics.md/g"
  -e "/${KEEP}/!s/${B}validation\\.md/\\1docs\\/validation.md/g"
  -e "/${KEEP}/!s/${B}fgd-policies\\.md/\\1docs\\/fgd-policies.md/g"
)

if [ "$mode" = rewrite ]; then
  n=0
  while IFS= read -r f; do
    before=$(cksum <"$f")
    sed -E -i "${rules[@]}" "$f"
    [ "$(cksum <"$f")" = "$before" ] || n=$((n + 1))
  done < <(files)
  echo "fix-doc-refs: rewrote citations in $n files under $root"
  # The longer paths push some comments past the 100-column limit: name them for clang-format
  # (whose comment reflow re-wraps them), without reformatting anything here.
  long=$(files | grep -E '\.(cpp|h)$' |
         xargs -r env LC_ALL=C.UTF-8 grep -nE '^.{101,}$' |
         grep -E 'docs/(design|semantics|validation|fgd-policies)\.md' || true)
  if [ -n "$long" ]; then
    echo "fix-doc-refs: $(echo "$long" | wc -l) rewritten lines are over 100 columns; run"
    echo "  clang-format -i $(echo "$long" | cut -d: -f1 | sort -u | tr '\n' ' ')"
  fi
  exit 0
fi

# --check: old citations left, then every docs/*.md citation against the documents' sections.
status=0
left=$(files | xargs -r grep -nE "${B}(DESIGN|semantics|validation|fgd-policies)\\.md" |
       grep -vE "$KEEP" || true)
if [ -n "$left" ]; then
  echo "fix-doc-refs: citations of the old names left:"
  echo "$left"
  status=1
fi
python3 - "$root" <<'EOF' || status=1
import os, re, sys
root = sys.argv[1]
docs = {d: open(os.path.join(root, "docs", d + ".md"), encoding="utf-8").read()
        for d in ("design", "semantics", "validation", "fgd-policies")}

def sections(text):
    have = set()
    for m in re.finditer(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", text, re.M):
        have.add(m.group(1))
    for m in re.finditer(r"^## Rung (\d+)", text, re.M):
        have.add("rung " + m.group(1))
    for m in re.finditer(r"^## Appendix ([A-Z])", text, re.M):
        have.add("Appendix " + m.group(1))
    return have

have = {d: sections(t) for d, t in docs.items()}
# §1's numbered items of docs/design.md ("1. **Soft isolation …").
m = re.search(r"^## 1\. .*?(?=^## 2\.)", docs["design"], re.M | re.S)
design_items = set(re.findall(r"^(\d+)\. \*\*", m.group(0), re.M))

cite = re.compile(r"docs/(design|semantics|validation|fgd-policies)\.md`?\s*"
                  r"(§\s*(\d+(?:\.\d+)?)(?:\s*[-–]\s*(\d+(?:\.\d+)?))?(?:,?\s*items?\s+(\d+))?"
                  r"|rung (\d+)|Appendix ([A-Z])(?: item (\d+))?)?")
bad = []
skip_dirs = {".git", "build", "expected", "node_modules"}
for top, dirs, names in os.walk(root):
    dirs[:] = [d for d in dirs if d not in skip_dirs]
    for name in names:
        path = os.path.join(top, name)
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        for lineno, text in enumerate(lines, 1):
            for c in cite.finditer(text):
                doc, sec, lo, hi, item, rung, app, appitem = c.groups()
                want = []
                if lo:
                    want.append(lo)
                    if hi:
                        major = lo.split(".")[0]
                        want.append(hi if "." in hi or "." not in lo else major + "." + hi)
                if rung:
                    want.append("rung " + rung)
                if app:
                    want.append("Appendix " + app)
                missing = [w for w in want if w not in have[doc]]
                if item and doc == "design" and lo == "1" and item not in design_items:
                    missing.append("§1 item " + item)
                if missing:
                    rel = os.path.relpath(path, root)
                    bad.append(f"{rel}:{lineno}: docs/{doc}.md {', '.join(missing)}")
if bad:
    print("fix-doc-refs: citations of sections that do not exist:")
    print("\n".join(bad))
    sys.exit(1)
print("fix-doc-refs: every citation of docs/{design,semantics,validation,fgd-policies}.md names "
      "an existing section")
EOF
exit "$status"

#!/usr/bin/python3
"""Checks a knobsim report as Chromium parsed it (the DOM that `chromium --dump-dom` prints).

Every <svg class="chart"> must hold at least one drawn mark (an element whose class includes
"mark"); a chart that knobsim wrote as "no-data" on purpose is counted apart and fails only with
--no-empty. The DOM must hold no script, no iframe or object, and no attribute that points
anywhere (src, href, srcset, action, poster, data) but to a fragment of the page itself.

    check_dom.py DOM.html [--charts N] [--no-empty]

Exit 0 when every check passes, 1 otherwise; one line per chart on stdout. Python's standard
library only (Debian's python3).
"""
import argparse
import sys
from html.parser import HTMLParser

LINK_ATTRS = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data",
              "background", "manifest"}
FORBIDDEN_TAGS = {"script", "iframe", "object", "embed", "link", "base", "frame"}


class Charts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts = []      # [title, marks, no_data]
        self.depth = 0        # nesting inside the current chart's <svg>
        self.in_title = False
        self.problems = []

    def handle_starttag(self, tag, attrs):
        if not self._element(tag, attrs) and self.depth > 0:
            self.depth += 1
            if tag == "title" and self.depth == 2:  # the chart's own <title>
                self.in_title = True

    def handle_startendtag(self, tag, attrs):
        self._element(tag, attrs)

    def _element(self, tag, attrs):
        """Checks one element; True when it opens a chart."""
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag in FORBIDDEN_TAGS:
            self.problems.append(f"<{tag}> element in the page")
        for name, value in attrs.items():
            if name in LINK_ATTRS and value is not None and not value.startswith("#"):
                self.problems.append(f"<{tag} {name}=\"{value}\"> points outside the page")
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...> event handler (a script) in the page")
        if tag == "svg" and "chart" in classes and self.depth == 0:
            self.charts.append(["", 0, "no-data" in classes])
            self.depth = 1
            return True
        if self.depth > 0 and "mark" in classes:
            self.charts[-1][1] += 1
        return False

    def handle_endtag(self, tag):
        if self.depth > 0:
            self.depth -= 1
            if tag == "title":
                self.in_title = False

    def handle_data(self, data):
        if self.in_title and self.charts:
            self.charts[-1][0] += data


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dom")
    ap.add_argument("--charts", type=int, help="the number of charts the page must have")
    ap.add_argument("--no-empty", action="store_true", help="fail on charts marked no-data")
    args = ap.parse_args()
    with open(args.dom, encoding="utf-8", errors="replace") as f:
        parser = Charts()
        parser.feed(f.read())
        parser.close()
    problems = list(parser.problems)
    for title, marks, no_data in parser.charts:
        state = "no data (on purpose)" if no_data else f"{marks} marks"
        print(f"  chart {title!r}: {state}")
        if not no_data and marks == 0:
            problems.append(f"chart {title!r} is empty: no drawn mark")
        if no_data and args.no_empty:
            problems.append(f"chart {title!r} has no data")
    if not parser.charts:
        problems.append("no chart in the page")
    if args.charts is not None and len(parser.charts) != args.charts:
        problems.append(f"{len(parser.charts)} charts, expected {args.charts}")
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Checks a knobsim report as Chromium parsed it (the DOM that `chromium --dump-dom` prints).

Every <svg class="chart"> must hold at least one drawn mark (an element whose class includes
"mark"); a chart that knobsim wrote as "no-data" on purpose is counted apart and fails only with
--no-empty. The DOM must hold no script, no iframe or object, and no attribute that points
anywhere (src, href, srcset, action, poster, data) but to a fragment of the page itself.

The charts must not mislead (issue 16):
  - a name keeps its colour: every legend swatch (rect.legend-swatch, data-series = the name)
    of a name has the same fill on every chart of the page;
  - a failed bar (rect.bar.failed: requests came, none succeeded) is never drawn shorter than
    any other bar of its chart; with --failed-bars N the page has exactly N of them;
  - with --slo-lines, every chart whose title names p99 and that draws bars carries an SLO line
    (line.reference.slo), and every p99 line chart a reference line (line.reference);
  - with --variants A,B,..., no variant's swatch is red (red means failure on these pages).

    check_dom.py DOM.html [--charts N] [--no-empty] [--failed-bars N] [--slo-lines]
                 [--variants NAMES]
    check_dom.py MEASURED-DOM.html --measured

--measured reads instead the DOM of a copy of the page that measure-text.html's script has run
in: it fails when the script did not run or marked a chart text (data-overflow) as reaching
outside its chart.

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
        self.swatches = {}    # legend name -> set of fills
        self.bars = []        # per chart: [(height, failed)]
        self.references = []  # per chart: [classes of each reference line]
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
            self.bars.append([])
            self.references.append([])
            self.depth = 1
            return True
        if self.depth > 0 and "mark" in classes:
            self.charts[-1][1] += 1
        if self.depth > 0 and tag == "rect" and "bar" in classes:
            try:
                height = float(attrs.get("height") or 0)
            except ValueError:
                height = 0
            self.bars[-1].append((height, "failed" in classes))
        if self.depth > 0 and tag == "line" and "reference" in classes:
            self.references[-1].append(set(classes))
        if tag == "rect" and "legend-swatch" in classes:
            self.swatches.setdefault(attrs.get("data-series") or "", set()).add(
                (attrs.get("fill") or "").lower())
        return False

    def handle_endtag(self, tag):
        if self.depth > 0:
            self.depth -= 1
            if tag == "title":
                self.in_title = False

    def handle_data(self, data):
        if self.in_title and self.charts:
            self.charts[-1][0] += data


def is_red(color):
    """A fill of hue within 20 degrees of red, saturated enough to read as red."""
    color = color.lstrip("#")
    if len(color) == 3:
        color = "".join(c * 2 for c in color)
    try:
        r, g, b = (int(color[i:i + 2], 16) / 255 for i in (0, 2, 4))
    except ValueError:
        return False
    hi, lo = max(r, g, b), min(r, g, b)
    if hi == 0 or (hi - lo) / hi < 0.35 or hi != r:
        return False
    hue = 60 * (g - b) / (hi - lo)
    return -20 <= hue <= 20


def chart_rules(parser, args):
    problems = []
    for name, fills in sorted(parser.swatches.items()):
        if len(fills) > 1:
            problems.append(f"legend {name!r} has {len(fills)} colours on one page: "
                            f"{', '.join(sorted(fills))}")
    failed = 0
    for (title, _, _), bars in zip(parser.charts, parser.bars):
        tallest = max((h for h, f in bars if not f), default=0)
        for height, is_failed in bars:
            if is_failed:
                failed += 1
                if height < tallest:
                    problems.append(f"chart {title!r}: a failed bar ({height:g} px) is drawn "
                                    f"shorter than a bar that did not fail ({tallest:g} px)")
    if args.failed_bars is not None and failed != args.failed_bars:
        problems.append(f"{failed} failed bars, expected {args.failed_bars}")
    if args.slo_lines:
        for (title, _, no_data), bars, refs in zip(parser.charts, parser.bars, parser.references):
            if no_data or "p99" not in title:
                continue
            if bars and not any("slo" in r for r in refs):
                problems.append(f"chart {title!r} draws p99 bars without an SLO line")
            if not bars and not refs:
                problems.append(f"chart {title!r} draws p99 without its SLO line")
    if args.variants:
        for name in args.variants.split(","):
            for fill in sorted(parser.swatches.get(name, ())):
                if is_red(fill):
                    problems.append(f"variant {name!r} is drawn red ({fill}): red means failure")
    return problems


class Measured(HTMLParser):
    """The marks measure-text.html left: whether it ran, and each overflowing text."""

    def __init__(self):
        super().__init__()
        self.summary = None
        self.overflows = []   # [where, text]
        self.open = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body" and attrs.get("data-measured"):
            self.summary = attrs["data-measured"]
        if attrs.get("data-overflow"):
            self.overflows.append([attrs["data-overflow"], ""])
            self.open = self.overflows[-1]

    def handle_endtag(self, tag):
        if tag == "text":
            self.open = None

    def handle_data(self, data):
        if self.open is not None:
            self.open[1] += data


def measured(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        parser = Measured()
        parser.feed(f.read())
        parser.close()
    if parser.summary is None:
        print("FAIL: the text measurement did not run", file=sys.stderr)
        return 1
    print(f"  measured: {parser.summary}")
    for where, text in parser.overflows:
        print(f"FAIL: text {text.strip()!r} reaches outside its chart: {where}", file=sys.stderr)
    return 1 if parser.overflows else 0


def main():
    if "--measured" in sys.argv[1:]:
        return measured([a for a in sys.argv[1:] if a != "--measured"][0])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dom")
    ap.add_argument("--charts", type=int, help="the number of charts the page must have")
    ap.add_argument("--no-empty", action="store_true", help="fail on charts marked no-data")
    ap.add_argument("--failed-bars", type=int, help="the number of failed bars the page must have")
    ap.add_argument("--slo-lines", action="store_true",
                    help="every p99 chart must carry its SLO line")
    ap.add_argument("--variants", help="comma-separated variant names whose colour must not be red")
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
    problems += chart_rules(parser, args)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Opens a knobsim HTML report in Debian's headless Chromium and checks what a person would see:
#   - the HTML source holds no external URL (no scheme://, no //cdn, no @import or url(), no
#     script, no <link>): the page must work offline;
#   - Chromium logs no console message while loading it (the page has no script, so any console
#     line is an error: a parse problem, a blocked load, an exception);
#   - every chart (<svg class="chart">) is present in the parsed page and has drawn marks
#     (check_dom.py), and, with --charts N, there are exactly N of them;
#   - the chart rules of check_dom.py (a name keeps its colour, failed bars drawn full, and with
#     the options: the number of failed bars, SLO lines on p99 charts, no red variant);
#   - no chart text reaches outside its chart, measured in Chromium's own layout (a copy of the
#     page with measure-text.html's script; the page itself has none);
#   - a screenshot (1280×2000) is saved, for a CI artefact or a look by eye.
#
#   tools/report-check/check.sh REPORT.html [--charts N] [--failed-bars N] [--slo-lines]
#       [--variants A,B,...] [--screenshot FILE.png]
#
# Exit 0 all passed, 1 a check failed, 77 no chromium (CTest's SKIP_RETURN_CODE).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

report="" charts="" screenshot="" rules=()
while [ $# -gt 0 ]; do
  case "$1" in
    --charts) charts="$2"; shift 2 ;;
    --failed-bars|--variants) rules+=("$1" "$2"); shift 2 ;;
    --slo-lines) rules+=("$1"); shift ;;
    --screenshot) screenshot="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) report="$1"; shift ;;
  esac
done
[ -n "$report" ] || { echo "usage: check.sh REPORT.html [--charts N] [--failed-bars N] [--slo-lines] [--variants A,B] [--screenshot FILE.png]" >&2; exit 2; }
[ -f "$report" ] || { echo "report-check: no file $report" >&2; exit 2; }

chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$chromium" ]; then
  echo "report-check: no chromium (apt-get install chromium; tools/setup.sh does); skipped" >&2
  exit 77
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
name="$(basename "$report")"
url="file://$(cd "$(dirname "$report")" && pwd)/$name"

# 1. The source: no external URL of any kind. The SVG namespace is the one URL-like string a
# page could need; knobsim writes inline SVG without it, but it is harmless if present.
if sed 's#xmlns="http://www.w3.org/2000/svg"##g' "$report" |
    grep -n -i -o -E '[a-z][a-z0-9+.-]*://[^ "<>]*|//cdn|@import|url\(|<script|<link|<iframe' >"$tmp/urls"; then
  echo "report-check: FAIL: $name holds external references:" >&2
  head -n 10 "$tmp/urls" >&2
  fail=1
fi

# Chromium flags that work headless as root in a container, with a fresh profile each run and
# nothing that reaches the network on its own.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --disable-extensions --disable-default-apps --hide-scrollbars --mute-audio)

# 2. Load it, log the console to stderr and dump the parsed page.
if ! timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$tmp/profile-dom" \
    --enable-logging=stderr --v=0 --dump-dom "$url" >"$tmp/dom.html" 2>"$tmp/chromium.log"; then
  echo "report-check: FAIL: chromium could not load $name:" >&2
  tail -n 20 "$tmp/chromium.log" >&2
  exit 1
fi
if grep -E ':CONSOLE[:(]|Uncaught' "$tmp/chromium.log" >"$tmp/console"; then
  echo "report-check: FAIL: console messages while loading $name:" >&2
  cat "$tmp/console" >&2
  fail=1
fi
if [ ! -s "$tmp/dom.html" ]; then
  echo "report-check: FAIL: chromium dumped no DOM for $name" >&2
  exit 1
fi

# 3. Charts present and drawn, nothing that points outside the page.
echo "report-check: $name" >&2
if ! /usr/bin/python3 "$here/check_dom.py" "$tmp/dom.html" ${charts:+--charts "$charts"} \
    ${rules[@]+"${rules[@]}"} >&2; then
  fail=1
fi

# 3b. No text overflowing its chart, as Chromium lays the page out: a copy of the page with
# measure-text.html's script before </body> (the report itself stays script-free), its DOM dumped
# after the script ran, then check_dom.py --measured reads the marks it left.
awk -v snippet="$here/measure-text.html" '
  /<\/body>/ && !done { while ((getline line < snippet) > 0) print line; done = 1 }
  { print }' "$report" >"$tmp/measured.html"
if ! timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$tmp/profile-measure" \
    --virtual-time-budget=5000 --dump-dom "file://$tmp/measured.html" >"$tmp/measured-dom.html" \
    2>"$tmp/measure.log" ||
    ! /usr/bin/python3 "$here/check_dom.py" "$tmp/measured-dom.html" --measured >&2; then
  echo "report-check: FAIL: text overflows a chart of $name (or it could not be measured)" >&2
  fail=1
fi

# 4. The screenshot.
if [ -n "$screenshot" ]; then
  mkdir -p "$(dirname "$screenshot")"
  shot="$(cd "$(dirname "$screenshot")" && pwd)/$(basename "$screenshot")"
  rm -f "$shot"
  timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$tmp/profile-shot" \
    --window-size=1280,2000 --screenshot="$shot" "$url" >/dev/null 2>"$tmp/shot.log" || true
  if [ -s "$shot" ] && [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    echo "report-check: screenshot $shot ($(wc -c <"$shot") bytes)" >&2
  else
    echo "report-check: FAIL: no screenshot written to $shot" >&2
    tail -n 20 "$tmp/shot.log" >&2
    fail=1
  fi
fi

if [ "$fail" -ne 0 ]; then
  echo "report-check: $name FAILED" >&2
  exit 1
fi
echo "report-check: $name passed" >&2

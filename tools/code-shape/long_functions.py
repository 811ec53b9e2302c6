#!/usr/bin/env python3
"""Lists functions longer than a limit (default 120 lines) and source files longer than a limit
(default 800 lines) among the non-test C++ sources that git tracks: the code-shape rule of
docs/design.md ("no file over ~800 lines, no function over ~120"). A rough scanner, not a parser:
it strips comments, strings and character literals, follows brace depth, and takes a brace that
opens right after a ')' (or a `const`/`noexcept`/`override`/trailing return after one) outside any
function body as the start of a function. Namespaces, classes and initialiser lists are followed,
not counted. Exit 1 when something is over its limit and --check is given.

  tools/code-shape/long_functions.py [--functions N] [--files N] [--check] [PATH ...]
"""
import argparse
import re
import subprocess
import sys


def strip(text):
    """Comments, strings and char literals replaced by spaces, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(')' + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r'[^\n]', ' ', text[i:end]))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(' ' * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(text):
    """(first line, line count, signature) of each function body at namespace or class level."""
    code = strip(text)
    stack = []  # kinds of the open braces: 'scope' (namespace/class/enum) or 'body' or 'other'
    found = []
    line = 1
    last = 0  # where the text since the last ; { } starts
    for i, c in enumerate(code):
        if c == '\n':
            line += 1
        elif c == '{':
            head = code[last:i]
            in_body = any(k == 'body' for k in stack)
            kind = 'other'
            if not in_body:
                h = head.strip()
                if re.search(r'\b(namespace|class|struct|union|enum)\b[^()]*$', h) or h.endswith('='):
                    kind = 'scope'
                elif re.search(r'\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s*&]+|\s)*$', h):
                    kind = 'body'
                    sig = ' '.join(h.split())[-100:]
                    found.append([line, None, sig])
                else:
                    kind = 'scope'
            stack.append(kind)
            last = i + 1
        elif c == '}':
            if stack:
                kind = stack.pop()
                if kind == 'body' and not any(k == 'body' for k in stack):
                    for f in reversed(found):
                        if f[1] is None:
                            f[1] = line - f[0] + 1
                            break
            last = i + 1
        elif c == ';':
            last = i + 1
    return [(a, b, s) for a, b, s in found if b is not None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--functions', type=int, default=120)
    ap.add_argument('--files', type=int, default=800)
    ap.add_argument('--check', action='store_true')
    ap.add_argument('paths', nargs='*')
    args = ap.parse_args()
    paths = args.paths or subprocess.check_output(
        ['git', 'ls-files', '*.cpp', '*.h'], text=True).split()
    over = 0
    for path in paths:
        if path.endswith('_test.cpp') or path.endswith('_bench.cpp'):
            continue
        text = open(path, encoding='utf-8', errors='replace').read()
        lines = text.count('\n')
        if lines > args.files:
            print(f'{path}: {lines} lines (file limit {args.files})')
            over += 1
        for first, count, sig in functions(text):
            if count > args.functions:
                print(f'{path}:{first}: {count} lines: {sig}')
                over += 1
    return 1 if (over and args.check) else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the C++ program that the ```cpp blocks of a Markdown file make, in order: their #include
lines at the top, everything else in main(), between a setup file (the files the text names) and a
checks file (what the example must have done). #line directives point compiler errors at the
Markdown file's own lines. With --section, only the blocks of that "## " section count (README.md's
"## Library"); without it, every block of the file (docs/LIBRARY.md).

Usage: extract_example.py DOC.md OUTPUT.cpp --setup SETUP.inc --checks CHECKS.inc
                          [--section "## Library"] [--include HEADER]...
"""
import argparse
import re


def cpp_blocks(text, section):
    """(first line number, lines) of each ```cpp block of the file, or of its `section`."""
    lines = text.split("\n")
    start, end = 0, len(lines)
    if section:
        if section not in lines:
            raise SystemExit("no section %r" % section)
        start = lines.index(section)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    blocks, current = [], None
    for number in range(start, end):
        line = lines[number]
        if current is None and line.strip() == "```cpp":
            current = (number + 2, [])  # 1-based number of the block's first line
        elif current is not None and line.strip() == "```":
            blocks.append(current)
            current = None
        elif current is not None:
            current[1].append(line)
    if current is not None or not blocks:
        raise SystemExit("no complete ```cpp block%s" % (" in " + section if section else ""))
    return blocks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("doc")
    parser.add_argument("output")
    parser.add_argument("--setup", required=True)
    parser.add_argument("--checks", required=True)
    parser.add_argument("--section")
    parser.add_argument("--include", action="append", default=[], help="a header the setup file needs")
    args = parser.parse_args()
    with open(args.doc) as f:
        blocks = cpp_blocks(f.read(), args.section)
    includes = ["#include <%s>" % header for header in ["bovw/npy.hpp", "filesystem", "iostream"] + args.include]
    body = []
    for first, lines in blocks:
        body.append('#line %d "%s"' % (first, args.doc))
        for line in lines:
            if re.match(r"\s*#include\b", line):
                if line.strip() not in includes:
                    includes.append(line.strip())
                body.append("")  # keeps the #line numbering
            else:
                body.append("    " + line if line else "")
    program = ["// Generated from %s by tests/readme/extract_example.py: edit %s." % (args.doc, args.doc)] + includes + [
        "", "int main(int argc, char** argv) {", "  try {", '#include "%s"' % args.setup] + body + [
        '#include "%s"' % args.checks,
        "  } catch (const std::exception& e) {",
        '    std::cerr << "example failed: " << e.what() << "\\n";',
        "    return 1;", "  }",
        '  std::cout << "example: ok\\n";', "  return 0;", "}", ""]
    with open(args.output, "w") as f:
        f.write("\n".join(program))


if __name__ == "__main__":
    main()

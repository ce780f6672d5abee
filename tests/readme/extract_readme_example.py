#!/usr/bin/env python3
"""Writes the C++ program that the ```cpp blocks of README.md's "## Library" section make, in order:
their #include lines at the top, everything else in main(), between tests/readme/readme_setup.inc
(the files the README names) and readme_checks.inc (what the example must have done). #line
directives point compiler errors at README.md's own lines.

Usage: extract_readme_example.py README.md OUTPUT.cpp
"""
import re
import sys


def library_blocks(readme):
    """(first line number, lines) of each ```cpp block of the "## Library" section."""
    lines = readme.split("\n")
    start = lines.index("## Library")
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
        raise SystemExit("README.md: no complete ```cpp block in the Library section")
    return blocks


def main():
    readme_path, output_path = sys.argv[1], sys.argv[2]
    with open(readme_path) as f:
        blocks = library_blocks(f.read())
    includes, body = [], []
    for first, lines in blocks:
        body.append('#line %d "%s"' % (first, readme_path))
        for line in lines:
            if re.match(r"\s*#include\b", line):
                if line.strip() not in includes:
                    includes.append(line.strip())
                body.append("")  # keeps the #line numbering
            else:
                body.append("    " + line if line else "")
    program = ["// Generated from README.md by tests/readme/extract_readme_example.py: edit README.md.",
               "#include <bovw/npy.hpp>", "#include <filesystem>", "#include <iostream>"] + includes + [
        "", "int main(int argc, char** argv) {", "  try {", '#include "readme_setup.inc"'] + body + [
        '#include "readme_checks.inc"',
        "  } catch (const std::exception& e) {",
        '    std::cerr << "README example failed: " << e.what() << "\\n";',
        "    return 1;", "  }",
        '  std::cout << "README example: ok\\n";', "  return 0;", "}", ""]
    with open(output_path, "w") as f:
        f.write("\n".join(program))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fails when the code's comments keep history instead of reasons.

    check_no_history.py REPOSITORY

Looks through every tracked source file (the headers, gpuh/, sim/, the
examples, tests, bench, tools, scripts and the CMake files; not the vendored
tests/samples, tests/simcc's golden files or the Markdown documents) for

  - a date (YYYY-MM-DD), "this session", "scratch run", "went from";
  - a before/after figure: "N % faster", "N % slower", "Nx faster",
    "ran faster", "ran slower";
  - "yet" (what is not done is an issue, not a comment);
  - "was ... until" (what the code used to be);
  - an issue number ("issue 7", "#12")

and prints each line found. Measured figures belong in bench/results/
(NOTES.md, with the command that made them); the code keeps the reason.
"""
import os
import re
import subprocess
import sys

HISTORY = re.compile(
    r"20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|this session|scratch run|went from"
    r"|\b[0-9]+(?:\.[0-9]+)? ?(?:%|x|times) (?:faster|slower)\b|\bran (?:faster|slower)\b"
    r"|\byet\b"
    r"|\bwas\b[^.;:]{0,60}\buntil\b"
    r"|\bissues? #?[0-9]+\b(?! ?(?:cp\.async|shared|loads|stores|instructions))|\(#[0-9]+\)",
    re.IGNORECASE)
SOURCE = re.compile(r"(\.(h|cuh|cu|c|cc|cpp|py|sh|cmake|in)|CMakeLists\.txt|/gpuh-simcc|\.ci/run)$")
LEFT_OUT = ("tests/samples/", "tests/simcc/", "bench/results/", "tools/check_no_history.py")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    listed = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if listed.returncode != 0:
        print("gpuh test skipped: not a git checkout, so no list of tracked files")
        return 0
    found = 0
    for path in listed.stdout.split():
        if not SOURCE.search("/" + path) or path.startswith(LEFT_OUT):
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = HISTORY.search(line)
                if m:
                    print(f"{path}:{number}: history ({m.group(0)!r}): {line.strip()}")
                    found += 1
    print(f"check_no_history: {found} lines keep history: {'FAIL' if found else 'PASS'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

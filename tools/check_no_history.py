#!/usr/bin/env python3
"""Fails when a header's comments keep history instead of reasons.

    check_no_history.py REPOSITORY

Looks through gpuh.h, gpuh_kernels.cuh with its folder gpuh/ and gpuh_sim.h for a date
(YYYY-MM-DD), "this session", "scratch run" and "went from", and prints each
line found. Measured figures belong in bench/results/ (NOTES.md, with the
command that made them); the code keeps the reason.
"""
import glob
import os
import re
import sys

HEADERS = ("gpuh.h", "gpuh_kernels.cuh", "gpuh_sim.h")
FOLDERS = ("gpuh",)  # the kernels' topic headers and the compiled mode's sources
HISTORY = re.compile(r"20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]|this session|scratch run|went from", re.IGNORECASE)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = 0
    headers = list(HEADERS)
    for folder in FOLDERS:
        headers += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, folder, "*.cu*")))
    for header in headers:
        with open(os.path.join(root, header), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = HISTORY.search(line)
                if m:
                    print(f"{header}:{number}: history ({m.group(0)!r}): {line.strip()}")
                    found += 1
    print(f"check_no_history: {found} lines keep history: {'FAIL' if found else 'PASS'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

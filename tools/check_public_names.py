#!/usr/bin/env python3
"""Fails when a public name that gpuh's headers declare is not documented.

    check_public_names.py REPOSITORY

gpuh.h's conventions: every gpuh_ / GPUH_ name without impl_ is public, and
the manual documents it. This check reads gpuh.h, and gpuh_kernels.cuh with
its folder gpuh/, and lists every such name they declare: macros (#define),
types (typedef, struct, enum, union), enumerators, functions and kernels
(a name followed by "(" in a declaration, not in a call). A name is
documented when it appears in a comment of its front: gpuh.h for gpuh.h's
names, gpuh_kernels.cuh for those of gpuh_kernels.cuh and gpuh/ (the front a
reader meets first). It prints each name that is not, with where it is
declared, and fails if there is one. Names of another library's stand-ins
(the simulator's CUDA names) are not gpuh's and are not looked at.
"""
import glob
import os
import re
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
NAME = r"(?:gpuh|GPUH)_[A-Za-z0-9_]+"
DECLARATIONS = [
    re.compile(r"^\s*#\s*define\s+(" + NAME + r")\b", re.MULTILINE),
    re.compile(r"\btypedef\b[^;{]*?\b(" + NAME + r")\s*(?:\[[^\]]*\])?\s*;"),
    re.compile(r"\btypedef\b[^;]*?\(\s*\*\s*(" + NAME + r")\s*\)"),  # a pointer to function
    re.compile(r"\b(?:struct|enum|union)\s+(" + NAME + r")\b\s*(?:[:{]|;)"),
    re.compile(r"\}\s*(" + NAME + r")\s*;"),  # typedef struct { ... } name;
    # a function or kernel: a return type (or __global__, template, GPUH_DEF) before the name
    re.compile(r"^[ \t]*(?!(?:return|else|case|do|if|while|for|switch|sizeof|throw)\b)"
               r"(?:template\s*<[^;{]*?>\s*)?(?:(?:static|inline|extern|GPUH_DEF|__global__|__device__|"
               r"__host__|__forceinline__|__launch_bounds__\([^)]*\)|const|unsigned|signed|struct|enum)\s+)*"
               r"[A-Za-z_][A-Za-z0-9_:<>\s\*&]*?[\s\*&](" + NAME + r")\s*\(", re.MULTILINE),
]
ENUM_BODY = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")
ENUMERATOR = re.compile(r"(?:^|,)\s*(" + NAME + r")\s*(?:=|,|$)")


def declared(code):
    names = set()
    for pattern in DECLARATIONS:
        names.update(m.group(1) for m in pattern.finditer(code))
    for body in ENUM_BODY.finditer(code):
        names.update(m.group(1) for m in ENUMERATOR.finditer(body.group(1)))
    return {n for n in names if "impl_" not in n.lower() and not n.lower().startswith("gpuh_sim")}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    fronts = {"gpuh.h": ["gpuh.h"],
              "gpuh_kernels.cuh": ["gpuh_kernels.cuh"] +
              sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "gpuh", "*.cu*")))}
    missing = 0
    total = 0
    for front, files in fronts.items():
        comments = " ".join(COMMENT.findall(read(os.path.join(root, front))))
        documented = set(re.findall(NAME, comments))
        seen = {}
        for path in files:
            text = read(os.path.join(root, path))
            code = STRING.sub('""', COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text))
            for name in declared(code):
                seen.setdefault(name, path)
        total += len(seen)
        for name in sorted(seen):
            if name not in documented:
                print(f"{seen[name]}: {name} is public (no impl_) but {front}'s comments never name it")
                missing += 1
    print(f"check_public_names: {total} public names, {missing} undocumented: {'FAIL' if missing else 'PASS'}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

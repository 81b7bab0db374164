#!/usr/bin/env python3
"""Golden tests of gpuh-simcc's rewrite (tests/simcc).

    run_golden.py GPUH_SIMCC [CASE ...] [--update]

Each CASE.cu beside this file is rewritten by `gpuh-simcc --rewrite` and the
output compared byte for byte with CASE.expected.cpp (the input's absolute
path, which the #line directives name, spelt @INPUT@ there). No CASE: all of
them. --update writes the expected files from the current output instead
(read the diff before committing it).
"""
import difflib
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def rewrite(simcc, case):
    src = os.path.join(HERE, case + ".cu")
    with tempfile.TemporaryDirectory(prefix="simcc-golden-") as tmp:
        out = os.path.join(tmp, case + ".cpp")
        run = subprocess.run([sys.executable, simcc, "--rewrite", src, out], capture_output=True)
        if run.returncode != 0:
            return None, run.stderr.decode(errors="replace")
        with open(out, "rb") as f:
            text = f.read()
    return text.replace(os.fsencode(src), b"@INPUT@"), ""


def main(argv):
    update = "--update" in argv
    args = [a for a in argv[1:] if a != "--update"]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    simcc, cases = args[0], args[1:]
    if not cases:
        cases = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "*.cu"))
                       if not os.path.basename(p).startswith("e2e_"))
    failed = 0
    for case in cases:
        got, err = rewrite(simcc, case)
        expected_path = os.path.join(HERE, case + ".expected.cpp")
        if got is None:
            print("%s: FAIL (gpuh-simcc failed)\n%s" % (case, err))
            failed += 1
            continue
        if update:
            with open(expected_path, "wb") as f:
                f.write(got)
            print("%s: written" % case)
            continue
        with open(expected_path, "rb") as f:
            want = f.read()
        if got == want:
            print("%s: PASS" % case)
            continue
        failed += 1
        print("%s: FAIL, the rewrite differs from %s:" % (case, os.path.basename(expected_path)))
        diff = difflib.diff_bytes(difflib.unified_diff, want.splitlines(True), got.splitlines(True),
                                  b"expected", b"got")
        sys.stdout.write(b"".join(diff).decode("utf-8", "backslashreplace"))
    print("%d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Writes scikit-learn's 8 x 8 handwritten digits to examples/data/digits.bin,
the file example 13 trains on (see examples/data/README.md for provenance
and licence). Run once; the output is committed.

    pip install scikit-learn
    python3 tools/export_digits.py [out_path]

Layout (little-endian), so that a C program reads it with fread alone:
    8 bytes   magic "GPUHDIG1"
    uint32    n, the number of images (1797)
    uint32    f, the features per image (64: 8 x 8 pixels, row by row)
    n * f     uint8 pixel intensities, 0 .. 16, image after image
    n         uint8 labels, 0 .. 9
"""
import struct
import sys

import numpy as np
from sklearn.datasets import load_digits


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "examples/data/digits.bin"
    d = load_digits()
    x = d.data.astype(np.float64)
    y = d.target
    if x.min() < 0 or x.max() > 16 or not np.all(x == np.round(x)):
        raise SystemExit("export_digits: pixels are not integers in 0..16")
    n, f = x.shape
    with open(out, "wb") as fh:
        fh.write(b"GPUHDIG1")
        fh.write(struct.pack("<II", n, f))
        fh.write(x.astype(np.uint8).tobytes())
        fh.write(y.astype(np.uint8).tobytes())
    print(f"export_digits: {n} images of {f} features, labels {np.bincount(y).tolist()} -> {out}")


if __name__ == "__main__":
    main()

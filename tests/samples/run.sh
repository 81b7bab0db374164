#!/bin/sh
# tests/samples/run.sh PATH [options]: see run.py (cuda-samples on the CPU simulator).
exec python3 "$(dirname "$0")/run.py" "$@"

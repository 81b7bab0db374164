#!/usr/bin/env bash
# Speed of gpuh's CPU simulator (gpuh_sim.h) against Numba's CUDA simulator
# (NUMBA_ENABLE_CUDASIM=1) on the same work, on this CPU, plus plain
# single-threaded C on the vector add:
#   vector add, 2^20 float32, blocks of 256        (bench/sim_vs_numba.py / .cu)
#   256 x 256 float32 matmul, 16 x 16 shared-memory tiles, __syncthreads
#   256-bin histogram of 2^20 bytes, shared-memory bins, atomicAdd (a quarter of the bytes 0)
# Numba is pip-installed into a venv in /tmp (reused when there). Numba's times
# are one run (each takes minutes); gpuh's are the median of 11 after a warm-up.
# Usage: bench/sim_vs_numba.sh        (about 10 minutes, most of it Numba's)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${GPUH_NUMBA_VENV:-/tmp/gpuh-numba-venv}
out=$(mktemp -d /tmp/gpuh-sim-vs-numba.XXXXXX)
trap 'rm -rf "$out"' EXIT

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import numba" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numba
fi
tools/gpuh-simcc -O2 bench/sim_vs_numba.cu -o "$out/sim_vs_numba"
cores=$(nproc)
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $cores cores;" \
     "numba $("$venv/bin/python" -c 'import numba; print(numba.__version__)'), $(${CXX:-c++} --version | head -1)"
"$out/sim_vs_numba" > "$out/gpuh_all"
GPUH_SIM_THREADS=1 "$out/sim_vs_numba" > "$out/gpuh_one"
NUMBA_ENABLE_CUDASIM=1 "$venv/bin/python" bench/sim_vs_numba.py > "$out/numba"

python3 - "$out" "$cores" <<'PY'
import sys
out, cores = sys.argv[1], sys.argv[2]
def read(name, scale):
    return {k: float(v) * scale for k, v in (line.split() for line in open(out + "/" + name))}
numba, all_, one = read("numba", 1000.0), read("gpuh_all", 1.0), read("gpuh_one", 1.0)
print("%-36s %14s %16s %16s %14s %14s" % ("work (times in ms)", "Numba cudasim", "gpuh sim, %s thr" % cores,
                                          "gpuh sim, 1 thr", "Numba / gpuh", "Numba / gpuh 1"))
for key, label in (("vector_add", "vector add, 2^20 float32"), ("matmul_tiled", "matmul 256^2 float32, tiled 16x16"),
                   ("histogram_shared", "histogram 256 bins, 2^20 bytes, atomics")):
    print("%-36s %14.1f %16.3f %16.3f %13.0fx %13.0fx" % (label, numba[key], all_[key], one[key],
                                                          numba[key] / all_[key], numba[key] / one[key]))
c = all_["vector_add_plain_c"]
print("plain single-threaded C, vector add: %.3f ms; gpuh sim is %.0fx slower (%s threads), %.0fx (1 thread)"
      % (c, all_["vector_add"] / c, cores, one["vector_add"] / c))
PY

"""Cold start: how long the first estimate of a session takes with an empty numba cache (cold:
the kernels it needs are compiled) and with a filled one (warm: they are loaded from disk).

    python benchmarks/cold_start.py            # every case, cold and warm (a few minutes)
    python benchmarks/cold_start.py --case ReliefF

Each measurement is a fresh Python process (so nothing is compiled or loaded in memory yet) with
``NUMBA_CACHE_DIR`` set to a directory of this run: empty for the cold run, the one the cold run
filled for the warm run. The process times ``import orangecontrib.relief``, loading the data
(shipped with Orange), the first call, and when the first compile notice came (what the command
line reports on stderr: "compiling ..."), and a second call (all kernels in memory).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

#: case name -> (data set shipped with Orange, Python expression of the call on ``data``)
CASES = {
    "ReliefF": ("iris", "ReliefF()(data)"),
    "RReliefF": ("housing", "RReliefF()(data)"),
    "ReliefF, Orange's heart_disease": ("heart_disease", "ReliefF()(data)"),
    "CORE tree (ReliefF)": ("iris", "CoreTreeLearner(estimator=ReliefF())(data)"),
}

CHILD = """
import json, sys, time
start = time.perf_counter()
from orangecontrib.relief import ReliefF, RReliefF, CoreTreeLearner
from orangecontrib.relief.compilation import compile_notices
from Orange.data import Table
imported = time.perf_counter()
data = Table(sys.argv[1])
loaded = time.perf_counter()
notices = []
with compile_notices(lambda name: notices.append(time.perf_counter())):
    eval(sys.argv[2])
first = time.perf_counter()
eval(sys.argv[2])
second = time.perf_counter()
print(json.dumps({"import": imported - start, "first": first - loaded,
                  "notice": notices[0] - loaded if notices else None,
                  "compiled": len(notices), "second": second - first}))
"""


def measure(data, call, cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    result = subprocess.run([sys.executable, "-c", CHILD, data, call], env=env,
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=CASES, action="append",
                        help="run only this case (repeatable); default: all")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| case | data | import (s) | cold first call (s) | compile notice after (s) "
          "| kernels compiled cold / warm | warm first call (s) | second call (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.case or CASES:
        data, call = CASES[name]
        with tempfile.TemporaryDirectory(prefix="relief-cold-") as cache:
            cold = measure(data, call, cache)
            warm = measure(data, call, cache)
        notice = "—" if cold["notice"] is None else f"{cold['notice']:.2f}"
        print(f"| {name} | {data} | {warm['import']:.2f} | {cold['first']:.2f} | {notice} "
              f"| {cold['compiled']} / {warm['compiled']} | {warm['first']:.2f} | {warm['second']:.3f} |",
              flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

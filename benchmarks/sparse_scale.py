"""Sparse data: ReliefF and RReliefF on a 10,000 x 50,000 table at 0.5 % density, time and peak
memory (targets: <= 30 s and <= 1 GB), and the peers on a smaller dense equivalent, in one run.

    python benchmarks/sparse_scale.py            # the target size (about a minute or two)
    python benchmarks/sparse_scale.py --quick    # a small smoke run (seconds)

The data: ``n`` x ``a`` values, each non-zero with probability ``density``, uniform in (0, 1]
(like tf-idf weights); the first 10 attributes are denser (30 %) and the class is 1 where
x0 + x1 > 0.3 (a numeric target for RReliefF: x0 + x1 plus a little noise), so the ranking has
two relevant attributes to find among ``a``.

* ours: ``ReliefF(k=10)`` and ``RReliefF(k=10)`` on ``encode(csr_matrix, y)``, every instance an
  iteration (the numba functions are compiled on a tiny warm-up set first, so the times exclude
  compilation). Peak memory is measured in a subprocess: resident memory sampled every 5 ms during
  the call, minus the resident memory before it (the sparse data, imports and compiled code
  already loaded; a dense copy of the data would be 8 * n * a bytes, 4 GB at the target size).
* peers: fast-select (``fast_select.ReliefF(n_neighbors=10, backend="cpu")``) and scikit-rebate
  (``skrebate.ReliefF(n_neighbors=10)``) take dense arrays only; their cost is N^2 * A whatever
  the density (fast-select took 27 s for 10,000 x 1,000 dense, so the target size would take
  about 20 minutes and a 4 GB dense copy; scikit-rebate's N x N distance matrix and Python loops
  take far longer). Each is timed on the dense equivalent of a smaller table (fast-select 2,000 x
  5,000, scikit-rebate 400 x 1,000, at the same density and class), as is our ReliefF on the same
  table in sparse and in dense form, and its time at the target size is extrapolated by N^2 * A
  (marked ≈). The correlation of each peer's scores with ours on that table is printed too (the
  peers take the k nearest neighbours of any class, ReliefF's definition takes k per class).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

from resident_memory import peak_rss_mb

SEED = 0
K = 10
#: the size of the table, and per peer the size of its dense table
FULL = dict(size=(10_000, 50_000, 0.005),
            peers={"fast-select": (2_000, 5_000), "scikit-rebate": (400, 1_000)})
QUICK = dict(size=(1_000, 5_000, 0.005),
             peers={"fast-select": (300, 1_000), "scikit-rebate": (100, 500)})
TARGET_SECONDS, TARGET_MB = 30.0, 1024.0


def make_data(n, a, density, regression=False, seed=SEED):
    """(CSR X, y): see the module docstring."""
    rng = np.random.default_rng(seed)
    nnz = rng.binomial(n * a, density)
    rows = rng.integers(0, n, nnz)
    cols = rng.integers(0, a, nnz)
    X = sp.csr_matrix((1.0 - rng.random(nnz), (rows, cols)), shape=(n, a))
    X.sum_duplicates()
    dense = min(10, a)
    head = (1.0 - rng.random((n, dense))) * (rng.random((n, dense)) < 0.3)
    X = sp.hstack([sp.csr_matrix(head), X[:, dense:]], format="csr")
    signal = head[:, 0] + head[:, 1]
    y = signal + 0.05 * rng.random(n) if regression else (signal > 0.3).astype(float)
    return X, y


def ours(X, y, regression=False):
    """(estimator, encoded data)."""
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    from orangecontrib.relief.estimators.rrelieff import RReliefF
    if regression:
        return RReliefF(k=K), encode(X, y)
    return ReliefF(k=K), encode(X, y, n_classes=2)


def run_ours(X, y, regression=False):
    estimator, data = ours(X, y, regression)
    return estimator(data)


def run_fast_select(X, y):
    import fast_select
    return np.asarray(fast_select.ReliefF(n_neighbors=K, backend="cpu").fit(X, y)
                      .feature_importances_, float)


def run_skrebate(X, y):
    import skrebate
    return skrebate.ReliefF(n_neighbors=K, n_features_to_select=2).fit(X, y).feature_importances_


PEERS = {"fast-select": run_fast_select, "scikit-rebate": run_skrebate}


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def child(n, a, density, regression):
    """Run in a subprocess: time (wall clock and CPU; encoding included), resident memory before
    and peak during our estimator on the sparse n x a table, the longest interval between two
    progress calls from the estimator's start to its end (a cancel raised from the callback
    takes effect within it), and the ranks of the two relevant attributes."""
    run_ours(*make_data(200, 50, 0.05, regression), regression)      # compile first
    X, y = make_data(n, a, density, regression)
    with peak_rss_mb() as memory:
        cpu = time.process_time()
        start = time.perf_counter()
        estimator, data = ours(X, y, regression)
        calls = [time.perf_counter()]
        scores = estimator(data, lambda f: calls.append(time.perf_counter()))
        calls.append(time.perf_counter())
        seconds = calls[-1] - start
        cpu = time.process_time() - cpu
    ranks = [int(np.sum(scores > scores[c])) + 1 for c in (0, 1)]
    print(json.dumps({"seconds": seconds, "cpu": cpu, "before_mb": memory["before"],
                      "peak_mb": memory["peak"],
                      "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "nnz": int(X.nnz), "ranks": ranks, "calls": len(calls) - 2,
                      "gap": float(np.max(np.diff(calls)))}))


def measure(n, a, density, regression):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(n), str(a),
                          str(density), str(int(regression))],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--no-peers", action="store_true", help="time only ours")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        n, a, density, regression = args.child
        child(int(n), int(a), float(density), bool(int(regression)))
        return
    plan = QUICK if args.quick else FULL
    n, a, density = plan["size"]
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    print(f"\n{n:,} x {a:,} at {density:.1%} density (targets: <= {TARGET_SECONDS:.0f} s, "
          f"<= {TARGET_MB:.0f} MB above the data)\n")
    print("| estimator | non-zeros | seconds | CPU seconds | peak MB above data | "
          "peak resident MB | longest gap between progress calls | ranks of x0, x1 | target |")
    print("|---|---|---|---|---|---|---|---|---|")
    ours = {}
    for regression in (False, True):
        r = measure(n, a, density, regression)
        growth = r["peak_mb"] - r["before_mb"]
        name = "RReliefF k=10" if regression else "ReliefF k=10"
        ours[regression] = r["seconds"]
        met = r["seconds"] <= TARGET_SECONDS and growth <= TARGET_MB
        print(f"| {name} (sparse) | {r['nnz']:,} | {r['seconds']:.1f} | {r['cpu']:.1f} | "
              f"{growth:.0f} | {r['peak_mb']:.0f} | {r['gap']:.2f} s ({r['calls']} calls) | "
              f"{r['ranks'][0]}, {r['ranks'][1]} | {'met' if met else 'NOT met'} |",
              flush=True)
    if args.no_peers:
        return
    from orangecontrib.relief.estimators import encode  # noqa: F401  (imports before timing)
    warm_X, warm_y = make_data(200, 50, 0.05)
    run_ours(warm_X, warm_y)                                # compile the sparse kernels
    run_ours(warm_X.toarray(), warm_y)                      # and the dense ones
    for peer in PEERS.values():
        peer(warm_X.toarray(), warm_y)                      # warm-up: imports, compilation
    print(f"\nPeers on the dense equivalent of a smaller table at {density:.1%} (ReliefF k=10, "
          f"every instance), extrapolated to {n:,} x {a:,} by N^2 A:\n")
    print("| method | table | seconds | ≈ at target size | ours (sparse) on that table | "
          "peer / ours (sparse) | correlation with ours |")
    print("|---|---|---|---|---|---|---|")
    for name, peer in PEERS.items():
        pn, pa = plan["peers"][name]
        Xs, y = make_data(pn, pa, density)
        Xd = Xs.toarray()
        scale = (n / pn) ** 2 * (a / pa)
        t_sparse, s_sparse = timed(lambda: run_ours(Xs, y))
        t_dense, _ = timed(lambda: run_ours(Xd, y))
        seconds, scores = timed(lambda: peer(Xd, y))
        corr = np.corrcoef(scores, s_sparse)[0, 1]
        table = f"{pn:,} × {pa:,}"
        print(f"| ours, dense array | {table} | {t_dense:.2f} | ≈ {t_dense * scale:,.0f} | "
              f"{t_sparse:.2f} | {t_dense / t_sparse:.1f}× | 1 |")
        print(f"| {name} | {table} | {seconds:.2f} | ≈ {seconds * scale:,.0f} | "
              f"{t_sparse:.2f} | {seconds / t_sparse:.1f}× | {corr:.4f} |", flush=True)
    print(f"\nload average after: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()

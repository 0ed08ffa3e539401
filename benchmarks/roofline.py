"""Roofline: this machine's peak rate of each kernel's inner operation, and how close the kernels come.

    python benchmarks/roofline.py            # the default sizes (a few minutes)
    python benchmarks/roofline.py --quick    # a smoke run (seconds)
    python benchmarks/roofline.py --large    # also exhaustive ReliefF on 50,000 x 100

Everything runs in one process, with numba's thread count set by ``numba.set_num_threads`` to
1, 2 and all the machine's threads in turn (``--threads`` to choose), so the peaks and the
kernels are measured under the same load. Each figure is the best of ``--repeats`` runs (the
least disturbed by other processes on a shared machine), peaks and kernels alternated.

Peaks: small numba loops, each over data that stay in the core's cache, split into
``TASKS`` fixed tasks run in parallel (``prange``), so they measure the arithmetic, not memory:

* **float32 abs-diff-accumulate**: ``acc[j] += abs(x - panel[u, j])`` over a panel of
  candidates (a diff term a candidate and attribute); the best of one query at a time, two
  queries sharing each load, and two queries in the form the single-precision search uses
  (``sum c + sum x - 2 sum min(c, x)``: a minimum and an add a term);
* **popcount of XORed bit planes**: ``s += popcount((a0 ^ b0) | (a1 ^ b1))``, one word of
  each plane (64 attributes of one pair of instances) a step;
* **the heap update**: candidates at random distances offered to a bounded max-heap of the
  K = 10 nearest (the search's ``_offer``, with its test against the farthest kept first):
  candidates a second, and, every offer entering the heap (descending distances), the worst
  case;
* **float64 multiply-accumulate**: ``running[u] += w * d[u]``, the diff sums' inner step.

Kernels (``orangecontrib.relief``'s, compiled; the work counted as the kernel does it):

* ReliefF's neighbour search on N x 100 numeric attributes, every instance (the
  single-precision search, each pair once: N (N - 1) / 2 x A diff terms) against the
  abs-diff peak; its diff sums (N x 2 classes x K x A terms) against the multiply-accumulate
  peak;
* ReliefF's search on N x A SNPs held as bit planes (N x N x W word pairs, W = A / 64) against
  the popcount peak, its candidates offered a second against the heap peak, and its diff sums;
* MultiSURF on the same SNPs: the distances to every instance (N x N x W word pairs) and the
  bands' mismatch counts (band members x W words, each added to eight vertical counters:
  about 30 word operations, so 100 % of the popcount peak is not reachable there);
* ReliefF on sparse data (10,000 x 20,000 at 0.5 %): speed-up and efficiency only (its
  inner step merges index lists; none of the peaks applies).

For each thread count the table gives the rate, the fraction of that thread count's peak, the
speed-up over one thread and the efficiency (speed-up / threads): what a user with more cores
may expect. ``uptime``'s load average is printed before and after.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("ORANGE_RELIEF_KERNELS", "compiled")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relieff_speed import make_data, make_snp  # noqa: E402

from orangecontrib.relief.estimators.neighbourhood.heaps import _offer  # noqa: E402
from orangecontrib.relief.estimators.neighbourhood.packed import (  # noqa: E402
    _mismatch_2x2, popcount)

#: fixed tasks of every peak loop (independent of the thread count)
TASKS = 64
K = 10


# ---------------------------------------------------------------------------------- the peaks
@njit(parallel=True, nogil=True)
def _absdiff_one(panel, x, reps, out):
    """acc[j] += |x[u] - panel[u, j]|, one query a pass."""
    A, W = panel.shape[1], panel.shape[2]
    for t in prange(out.shape[0]):
        p = panel[t]
        acc = np.zeros(W, np.float32)
        for r in range(reps):
            for u in range(A):
                xu = x[t, (u + r) % A]
                row = p[u]
                for j in range(W):
                    acc[j] += abs(xu - row[j])
        out[t] = acc.sum()


@njit(inline="always")
def _absdiff(x, c):
    return abs(x - c)


@njit(inline="always")
def _minimum(x, c):
    return min(x, c)


@njit(parallel=True, nogil=True)
def _two_queries(term, panel, x, reps, out):
    """acc[j] += term(x, panel[u, j]) for two queries sharing each load of the panel; term
    ``_absdiff``, or ``_minimum``: the single-precision search's form (the sums of the values
    are added once a pair)."""
    A, W = panel.shape[1], panel.shape[2]
    for t in prange(out.shape[0]):
        p = panel[t]
        acc0 = np.zeros(W, np.float32)
        acc1 = np.zeros(W, np.float32)
        for r in range(reps):
            for u in range(A):
                x0, x1 = x[t, (u + r) % A], x[t, (u + r + 1) % A]
                row = p[u]
                for j in range(W):
                    c = row[j]
                    acc0[j] += term(x0, c)
                    acc1[j] += term(x1, c)
        out[t] = acc0.sum() + acc1.sum()


@njit(parallel=True, nogil=True)
def _popcount_xor(a, b, reps, out):
    """s += popcount((a0 ^ b0) | (a1 ^ b1)) of a query's planes against a tile of candidates."""
    C, W = b.shape[1], b.shape[3]
    for t in prange(out.shape[0]):
        total = np.uint64(0)
        for r in range(reps):
            a0, a1 = a[t, r % 2, 0], a[t, r % 2, 1]
            for j in range(C):
                b0, b1 = b[t, j, 0], b[t, j, 1]
                s = np.uint64(0)
                for w in range(W):
                    s += popcount((a0[w] ^ b0[w]) | (a1[w] ^ b1[w]))
                total += s
        out[t] = np.float64(total)


@njit(parallel=True, nogil=True)
def _popcount_xor_2x2(a, b, reps, out):
    """Two queries against two candidates at a time, as the search counts them
    (``packed._mismatch_2x2``: each word loaded serves two pairs)."""
    C = b.shape[1]
    for t in prange(out.shape[0]):
        total = np.uint64(0)
        for r in range(reps):
            for j in range(0, C, 2):
                s = _mismatch_2x2(a[t, 0, 0], a[t, 0, 1], a[t, 1, 0], a[t, 1, 1],
                                  b[t, j, 0], b[t, j, 1], b[t, j + 1, 0], b[t, j + 1, 1])
                total += s[0] + s[1] + s[2] + s[3]
        out[t] = np.float64(total)


@njit(parallel=True, nogil=True)
def _heap_offers(d, reps, out):
    """The candidates at distances d[t] offered, as the search offers them, to a heap of K."""
    n = d.shape[1]
    for t in prange(out.shape[0]):
        hd = np.empty(K)
        hi = np.empty(K, np.int64)
        total = 0.0
        for r in range(reps):
            size = 0
            far = np.inf
            row = d[t]
            for j in range(n):
                x = row[j]
                if x > far:
                    continue
                size = _offer(hd, hi, size, K, x, j)
                if size == K:
                    far = hd[0]
            total += hd[0]
        out[t] = total


@njit(parallel=True, nogil=True)
def _multiply_add(d, w, reps, out):
    """running[u] += w * d[u] over a row of diffs (the diff sums' step)."""
    n = d.shape[1]
    for t in prange(out.shape[0]):
        running = np.zeros(n)
        row = d[t]
        for r in range(reps):
            s = w[(t + r) % w.size]
            for u in range(n):
                running[u] += s * row[u]
        out[t] = running.sum()


def _best(function, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


class Peaks:
    """The peak loops with their data (made once) and operation counts."""

    def __init__(self, scale):
        rng = np.random.default_rng(0)
        A, W = 64, 128                                  # 32 KB of float32 a task: L1
        self.panel = rng.random((TASKS, A, W), dtype=np.float32)
        self.x = rng.random((TASKS, A), dtype=np.float32)
        self.reps_f32 = max(1, int(400 * scale))
        self.terms_f32 = TASKS * self.reps_f32 * A * W
        C, Wd = 16, 64                                  # 16 KB of planes a task
        self.a = rng.integers(0, 2 ** 63, (TASKS, 2, 2, Wd), dtype=np.uint64)
        self.b = rng.integers(0, 2 ** 63, (TASKS, C, 2, Wd), dtype=np.uint64)
        self.reps_pop = max(1, int(2000 * scale))
        self.words = TASKS * self.reps_pop * C * Wd
        n = 10_000
        self.d = rng.random((TASKS, n))
        self.d_worst = np.sort(self.d, axis=1)[:, ::-1].copy()
        self.reps_heap = max(1, int(40 * scale))
        self.offers = TASKS * self.reps_heap * n
        self.reps_worst = max(1, int(4 * scale))
        self.offers_worst = TASKS * self.reps_worst * n
        self.diffs = rng.random((TASKS, 256))
        self.w = rng.random(17)
        self.reps_fma = max(1, int(30_000 * scale))
        self.fma_terms = TASKS * self.reps_fma * 256
        self.out = np.zeros(TASKS)
        self.run(1)                                    # compile

    def run(self, repeats):
        """{operation: rate a second} at the current thread count."""
        o = self.out
        f32 = max(self.terms_f32 / _best(lambda: _absdiff_one(self.panel, self.x, self.reps_f32, o),
                                        repeats),
                  *(2 * self.terms_f32 / _best(lambda: _two_queries(term, self.panel, self.x,
                                                                    self.reps_f32, o), repeats)
                    for term in (_absdiff, _minimum)))
        return {
            "f32": f32,
            "pop": max(self.words / _best(lambda: _popcount_xor(self.a, self.b, self.reps_pop, o),
                                          repeats),
                       self.words * 2 / _best(lambda: _popcount_xor_2x2(self.a, self.b,
                                                                        self.reps_pop, o),
                                              repeats)),
            "heap": self.offers / _best(lambda: _heap_offers(self.d, self.reps_heap, o), repeats),
            "heap_worst": self.offers_worst / _best(
                lambda: _heap_offers(self.d_worst, self.reps_worst, o), repeats),
            "fma": self.fma_terms / _best(lambda: _multiply_add(self.diffs, self.w,
                                                                self.reps_fma, o), repeats),
        }


# -------------------------------------------------------------------------------- the kernels
def snp_data(n, a):
    """SNPs held only as bit planes, as a ``.bed`` file is read
    (:meth:`orangecontrib.relief.readers.PlinkFile.genotypes`): the estimators read the planes,
    with no decoded copy to pack again."""
    from orangecontrib.relief.estimators.encoding import EncodedData
    from orangecontrib.relief.estimators.neighbourhood.packed import PackedColumns, pack_planes
    X, y = make_snp(n, a)
    planes = pack_planes(X, np.arange(a))
    return EncodedData(X=PackedColumns(planes, a), y=y, discrete=np.ones(a, bool),
                       n_values=np.full(a, 3, np.intp), n_classes=2, minimum=np.zeros(a),
                       span=np.ones(a), names=tuple(f"rs{i}" for i in range(a)), y_span=1.0)


def _sparse_data(n, a, density):
    import scipy.sparse as sp

    from orangecontrib.relief.estimators import encode
    rng = np.random.default_rng(0)
    X = sp.random(n, a, density=density, format="csr", random_state=rng)
    y = (np.asarray(X[:, 0].todense()).ravel() + np.asarray(X[:, 1].todense()).ravel()
         > 0.3 * density).astype(float)
    return encode(X, y, n_classes=2)


class Kernels:
    """The package's kernels on fixed data, with the work each does."""

    def __init__(self, numeric_sizes, snp, sparse):
        from orangecontrib.relief.estimators import encode
        self.numeric = [(n, a, encode(*make_data(n, a), n_classes=2)) for n, a in numeric_sizes]
        self.snp = (snp, snp_data(*snp))
        self.sparse = (sparse, _sparse_data(*sparse))
        self.band_words = 0
        self.band_seconds = 0.0
        self.distance_seconds = 0.0
        self._instrument()

    def _instrument(self):
        """Time MultiSURF's two stages (the distances and the bands' mismatch counts) and count
        the band members' words, by wrapping the functions it calls."""
        from orangecontrib.relief.estimators import surf
        from orangecontrib.relief.estimators.neighbourhood import diffs
        band, distances = surf.band_mismatch_counts, diffs.DiffModel.distances

        def timed_band(planes, rows, member, *args):
            start = time.perf_counter()
            band(planes, rows, member, *args)
            self.band_seconds += time.perf_counter() - start
            self.band_words += int(np.count_nonzero(member)) * planes.shape[2]

        def timed_distances(model, rows):
            start = time.perf_counter()
            out = distances(model, rows)
            self.distance_seconds += time.perf_counter() - start
            return out
        surf.band_mismatch_counts = timed_band
        diffs.DiffModel.distances = timed_distances

    def run(self, repeats):
        """[(kernel, operation, rate, unit)] at the current thread count."""
        from orangecontrib.relief.estimators.relieff import ReliefF
        from orangecontrib.relief.estimators.surf import MultiSURF
        results = []
        for n, a, data in self.numeric:
            search, sums = self._relieff(data, repeats)
            results.append((f"ReliefF search, {n:,} × {a} numeric", "f32",
                            n * (n - 1) / 2 * a / search, "diff terms"))
            results.append((f"ReliefF diff sums, {n:,} × {a} numeric", "fma",
                            n * 2 * K * a / sums, "diff terms"))
        (n, a), data = self.snp
        W = (a + 63) // 64
        search, sums = self._relieff(data, repeats)
        results.append((f"ReliefF search, {n:,} × {a:,} SNPs", "pop", n * n * W / search,
                        "word pairs"))
        results.append((f"ReliefF search, {n:,} × {a:,} SNPs", "heap", n * n / search,
                        "candidates"))
        results.append((f"ReliefF diff sums, {n:,} × {a:,} SNPs", "fma", n * 2 * K * a / sums,
                        "diff terms"))
        best = None
        for _ in range(repeats):
            self.band_words, self.band_seconds, self.distance_seconds = 0, 0.0, 0.0
            start = time.perf_counter()
            MultiSURF()(data)
            total = time.perf_counter() - start
            if best is None or total < best[0]:
                best = (total, self.distance_seconds, self.band_seconds, self.band_words)
        total, dist, band, words = best
        results.append((f"MultiSURF distances, {n:,} × {a:,} SNPs", "pop", n * n * W / dist,
                        "word pairs"))
        results.append((f"MultiSURF band counts, {n:,} × {a:,} SNPs", "pop", words / band,
                        "member words"))
        results.append((f"MultiSURF whole, {n:,} × {a:,} SNPs", None, 1 / total, "runs"))
        (n, a, density), data = self.sparse
        seconds = _best(lambda: ReliefF(k=K)(data), repeats)
        results.append((f"ReliefF whole, {n:,} × {a:,} sparse at {density:.1%}", None,
                        1 / seconds, "runs"))
        return results

    @staticmethod
    def _relieff(data, repeats):
        """Best seconds of ReliefF's search and of its diff sums."""
        from orangecontrib.relief.estimators.relieff import ReliefF
        estimator = ReliefF(k=K)
        search = sums = np.inf
        for _ in range(repeats):
            start = time.perf_counter()
            context = estimator.context(data)
            middle = time.perf_counter()
            estimator.estimate(context)
            search = min(search, middle - start)
            sums = min(sums, time.perf_counter() - middle)
        return search, sums


NAMES = {"f32": "float32 abs-diff-accumulate", "pop": "popcount of XORed planes",
         "heap": "heap update (random distances)",
         "heap_worst": "heap update (every offer enters)", "fma": "float64 multiply-accumulate"}
UNITS = {"f32": "terms", "pop": "word pairs", "heap": "candidates", "heap_worst": "candidates",
         "fma": "terms"}


def _rate(x):
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= size:
            return f"{x / size:.2f} {unit}"
    return f"{x:.3g}"


def load():
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--large", action="store_true",
                        help="also the search on 50,000 x 100 numeric attributes")
    parser.add_argument("--threads", default=None,
                        help="comma-separated thread counts (default: 1, 2, all)")
    parser.add_argument("--repeats", type=int, default=None, help="runs of each (best kept)")
    args = parser.parse_args(argv)
    every = numba.config.NUMBA_NUM_THREADS
    threads = sorted({int(t) for t in args.threads.split(",")} if args.threads
                     else {t for t in (1, 2, every) if t <= every})
    repeats = args.repeats or (1 if args.quick else 3)
    if args.quick:
        scale, numeric, snp, sparse = 0.05, [(2_000, 100)], (400, 2_000), (1_000, 2_000, 0.005)
    else:
        scale, numeric, snp, sparse = 1.0, [(20_000, 100)], (2_000, 30_000), \
            (10_000, 20_000, 0.005)
        if args.large:
            numeric.append((50_000, 100))
    print(f"# Roofline, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {load()}")
    print(f"CPU threads numba may use: {every}; measured at {threads}; best of {repeats}")
    peaks_data = Peaks(scale)
    kernels = Kernels(numeric, snp, sparse)
    kernels.run(1)                                         # compile or load every kernel
    peaks, achieved = {}, {}
    for t in threads:
        numba.set_num_threads(t)
        peaks[t] = peaks_data.run(repeats)
        print(f"{t} thread(s), peaks: " + ", ".join(
            f"{NAMES[op]} {_rate(rate)}/s" for op, rate in peaks[t].items()), flush=True)
        achieved[t] = kernels.run(repeats)
        print(f"{t} thread(s), kernels ({load()}): " + "; ".join(
            f"{name} {_rate(rate)} {unit}/s" for name, _, rate, unit in achieved[t]), flush=True)
    numba.set_num_threads(every)

    print("\n## Peaks (operations a second; speed-up over one thread)\n")
    print("| operation | unit | " + " | ".join(f"{t} thread{'s' * (t > 1)}" for t in threads)
          + " |")
    print("|---|---|" + "---|" * len(threads))
    for op in NAMES:
        cells = [f"{_rate(peaks[t][op])} ({peaks[t][op] / peaks[threads[0]][op]:.2f}×)"
                 for t in threads]
        print(f"| {NAMES[op]} | {UNITS[op]} | " + " | ".join(cells) + " |")

    print("\n## Kernels (rate, fraction of the peak at that thread count, speed-up over one "
          "thread, efficiency = speed-up / threads)\n")
    print("| kernel | against | unit | " + " | ".join(
        f"{t} thread{'s' * (t > 1)}" for t in threads) + " |")
    print("|---|---|---|" + "---|" * len(threads))
    base = threads[0]
    for i, (name, op, _, unit) in enumerate(achieved[base]):
        cells = []
        for t in threads:
            rate = achieved[t][i][2]
            speedup = rate / achieved[base][i][2]
            frac = f", {rate / peaks[t][op]:.0%} of peak" if op else ""
            cells.append(f"{_rate(rate)}/s{frac}, {speedup:.2f}× ({speedup / t * base:.0%})")
        print(f"| {name} | {NAMES[op] if op else '—'} | {unit} | " + " | ".join(cells) + " |")
    print(f"\n{load()}")


if __name__ == "__main__":
    main()

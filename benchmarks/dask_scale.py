"""The Dask backend (orangecontrib.relief.dask): equality with one machine, a table larger than
the workers' memory, and time against rows, in one run.

    python benchmarks/dask_scale.py --data DIR              # full run (writes ≈8 GB to DIR once)
    python benchmarks/dask_scale.py --data DIR --quick      # a small smoke run (a minute)

Every case runs on a ``distributed.LocalCluster`` of ``--workers`` worker processes (one thread
each, numba limited to one thread per worker, so the workers share the machine's cores), each
limited to ``--memory-limit``:

(a) equality: a medium table (uniform [0, 1] attributes, every fourth one discrete with three
    values; the class is the XOR of the first two attributes thresholded at 0.5, the numeric
    target their sum plus noise) in uneven partitions; ReliefF (k = 10), RReliefF (k = 70,
    exp-rank) and MultiSURF with m sampled instances, on Dask and on one machine
    (``estimator(encode(X, y))`` with the same ``iterations`` and ``random_state``): the largest
    difference of the estimates and both times.
(b) larger than the workers' memory: N x 100 float32 attributes on disk (a Dask npy stack in
    DIR, chunks of ``--chunk`` rows, written once and reused; class: the XOR above), ReliefF
    k = 10 with m sampled instances, a progress bar from the backend's callback; the workers'
    peak resident memory is sampled every 0.5 s.
(c) time against rows: the same ReliefF on the first n rows of that table, and for the sizes
    that fit this machine the single-machine estimator on the same rows (read into memory
    first, not timed) with the ratio.
(d) cancelling: the callback raises 10 s (quick: 1 s) into ReliefF on the first rows of the
    table; the time until the call returns, and until no worker thread runs a task.
(e) from a Parquet folder and through scikit-learn: the first rows of the table written once as
    Parquet (a file per partition, row groups of 50,000 rows) and ranked as
    ``orange-relief rank DIR --class y --dask`` reads it (:func:`.readers.parquet_dask`, a
    partition per row group), and the same rows fitted by the scikit-learn selector with
    ``backend="dask"``; both against the single-machine estimator on the same rows.

Times are wall clock of one run; the machine's load average is printed with them (it is shared).
"""
import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

A = 100
SEED = 0
FULL = dict(medium=(20_000, 40, 200), big=20_000_000, rows=[1_000_000, 2_000_000, 5_000_000],
            single=2_000_000, m=100, parquet=1_000_000)
QUICK = dict(medium=(2_000, 10, 50), big=400_000, rows=[100_000, 200_000], single=200_000,
             m=20, parquet=100_000)


def load():
    return open("/proc/loadavg").read().split()[:3]


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        return "?"


def cluster(args):
    from distributed import Client, LocalCluster
    os.environ["NUMBA_NUM_THREADS"] = "1"       # the worker processes inherit it
    c = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                     memory_limit=args.memory_limit, dashboard_address=":0")
    return Client(c)


def medium_table(n, a):
    rng = np.random.default_rng(SEED)
    X = rng.random((n, a))
    discrete = np.arange(a) % 4 == 3
    X[:, discrete] = np.floor(X[:, discrete] * 3)
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(float)
    target = X[:, 0] + X[:, 1] + rng.normal(scale=0.1, size=n)
    return X, y, target, discrete


def equality(client, n, a, m, show=True):
    import dask.array as da
    from orangecontrib.relief.dask import estimate
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    from orangecontrib.relief.estimators.rrelieff import RReliefF
    from orangecontrib.relief.estimators.surf import MultiSURF
    X, y, target, discrete = medium_table(n, a)
    sizes = [n // 7, n // 3, n // 5]
    chunks = tuple(sizes + [n - sum(sizes)])
    say = print if show else (lambda *args, **kwargs: None)
    say(f"\n(a) equality: {n:,} x {a} ({discrete.sum()} discrete), m = {m}, "
        f"partitions {chunks}, load {load()}")
    say("| estimator | max abs difference | Dask | one machine |")
    say("|---|---|---|---|")
    for name, est, t, nc in (("ReliefF k=10", ReliefF(k=10, iterations=m, random_state=1), y, 2),
                             ("RReliefF k=70", RReliefF(iterations=m, random_state=1), target, 0),
                             ("MultiSURF", MultiSURF(iterations=m, random_state=1), y, 2)):
        start = time.perf_counter()
        ours = estimate(est, da.from_array(X, chunks=(chunks, -1)),
                        da.from_array(t, chunks=(chunks,)), discrete=discrete, n_classes=nc,
                        client=client)
        t_dask = time.perf_counter() - start
        start = time.perf_counter()
        single = est(encode(X, t, discrete=discrete, n_classes=nc))
        t_single = time.perf_counter() - start
        say(f"| {name} | {np.max(np.abs(ours - single)):.1e} | {t_dask:.2f} s | "
            f"{t_single:.2f} s |", flush=True)


def write_table(path, n, chunk):
    """N x A float32 uniform attributes and the XOR class, as Dask npy stacks under ``path``."""
    import dask
    import dask.array as da
    x_dir, y_dir = path / f"X_{n}", path / f"y_{n}"
    if (x_dir / "info").exists() and (y_dir / "info").exists():
        return x_dir, y_dir
    print(f"writing {n:,} x {A} float32 ({n * A * 4 / 1e9:.1f} GB) to {path} ...", flush=True)
    start = time.perf_counter()
    X = da.random.default_rng(SEED).random((n, A), chunks=(chunk, A), dtype=np.float32)
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5)).astype(np.int8)
    with dask.config.set(scheduler="threads", num_workers=2):
        da.to_npy_stack(x_dir, X)
        da.to_npy_stack(y_dir, y)
    print(f"written in {time.perf_counter() - start:.0f} s", flush=True)
    return x_dir, y_dir


class PeakMemory:
    """The workers' largest resident memory (sum over workers and largest single worker),
    sampled every 0.5 s."""

    def __init__(self, client):
        self.client, self.total, self.single = client, 0, 0
        self.running = True
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        import psutil
        while self.running:
            try:
                rss = self.client.run(lambda: psutil.Process().memory_info().rss)
                self.total = max(self.total, sum(rss.values()))
                self.single = max(self.single, max(rss.values()))
            except Exception:       # the client closing
                pass
            time.sleep(0.5)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.total, self.single


def relieff_on_disk(client, x_dir, y_dir, n, m, bar=False):
    import dask.array as da
    from orangecontrib.relief.dask import estimate
    from orangecontrib.relief.estimators.relieff import ReliefF
    X = da.from_npy_stack(x_dir, mmap_mode="r")[:n]
    y = da.from_npy_stack(y_dir, mmap_mode="r")[:n]
    callback = None
    if bar:
        from tqdm import tqdm
        progress = tqdm(total=100, unit="%", file=sys.stdout, mininterval=5)
        callback = lambda f: progress.update(round(100 * f) - progress.n)   # noqa: E731
    peak = PeakMemory(client)
    start = time.perf_counter()
    scores = estimate(ReliefF(k=10, iterations=m, random_state=SEED), X, y, n_classes=2,
                      client=client, callback=callback)
    elapsed = time.perf_counter() - start
    total, single = peak.stop()
    if bar:
        progress.close()
    return scores, elapsed, total, single


def single_machine(x_dir, y_dir, n, m):
    import dask.array as da
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    X = np.asarray(da.from_npy_stack(x_dir, mmap_mode="r")[:n].compute(scheduler="threads"),
                   dtype=np.float64)
    y = np.asarray(da.from_npy_stack(y_dir, mmap_mode="r")[:n].compute(scheduler="threads"))
    data = encode(X, y, n_classes=2)
    start = time.perf_counter()
    scores = ReliefF(k=10, iterations=m, random_state=SEED)(data)
    return scores, time.perf_counter() - start


class Stop(Exception):
    pass


def cancel_latency(client, x_dir, y_dir, n, m, after):
    import dask.array as da
    from orangecontrib.relief.dask import estimate
    from orangecontrib.relief.estimators.relieff import ReliefF
    X = da.from_npy_stack(x_dir, mmap_mode="r")[:n]
    y = da.from_npy_stack(y_dir, mmap_mode="r")[:n]
    start = time.perf_counter()
    raised = []

    def callback(fraction):
        if time.perf_counter() - start > after:
            raised.append((time.perf_counter(), fraction))
            raise Stop
    try:
        estimate(ReliefF(k=10, iterations=m, random_state=SEED), X, y, n_classes=2,
                 client=client, callback=callback)
    except Stop:
        returned = time.perf_counter()
    # a cancelled task leaves the scheduler at once; its thread on the worker runs on until it
    # looks at the cancel (between blocks of sampled instances)
    while any(client.run(lambda dask_worker: len(dask_worker.active_threads)).values()):
        time.sleep(0.02)
    idle = time.perf_counter()
    at, fraction = raised[0]
    return fraction, returned - at, idle - at


def parquet_and_sklearn(client, x_dir, y_dir, folder, n, m):
    """(e): seconds of the Parquet route and of the selector, and their largest differences
    from the single-machine estimates (and its seconds)."""
    import dask.array as da
    import pyarrow as pa
    import pyarrow.parquet as pq
    from orangecontrib.relief.dask import estimate
    from orangecontrib.relief.estimators.relieff import ReliefF
    from orangecontrib.relief.readers import parquet_dask
    from orangecontrib.relief.sklearn import ReliefF as Selector
    X = da.from_npy_stack(x_dir, mmap_mode="r")[:n]
    y = da.from_npy_stack(y_dir, mmap_mode="r")[:n]
    folder = folder / f"parquet_{n}"
    if not folder.exists():
        folder.mkdir()
        for i, (xb, yb) in enumerate(zip(X.to_delayed().ravel(), y.to_delayed().ravel())):
            xb, yb = np.asarray(xb.compute()), np.asarray(yb.compute())
            columns = {f"x{c}": xb[:, c] for c in range(xb.shape[1])}
            columns["y"] = yb.astype(np.int8)
            pq.write_table(pa.table(columns), folder / f"part{i}.parquet",
                           row_group_size=50_000)
    ref, t_single = single_machine(x_dir, y_dir, n, m)
    start = time.perf_counter()
    frame = parquet_dask(folder)
    from_parquet = estimate(ReliefF(k=10, iterations=m, random_state=SEED), frame, "y",
                            n_classes=2, client=client)
    t_parquet = time.perf_counter() - start
    start = time.perf_counter()
    selector = Selector(k=10, iterations=m, random_state=SEED, backend="dask", client=client)
    fitted = selector.fit(X, np.asarray(y)).feature_importances_
    t_sklearn = time.perf_counter() - start
    return (t_parquet, np.max(np.abs(from_parquet - ref)), t_sklearn,
            np.max(np.abs(fitted - ref)), t_single)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True,
                        help="directory for the on-disk table (written once)")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="2GB", help="per worker")
    parser.add_argument("--chunk", type=int, default=250_000, help="rows per partition")
    parser.add_argument("--rows", type=int, default=None, help="rows of the big table (b)")
    parser.add_argument("--skip", default="", help="parts to skip, e.g. 'a,c,d,e'")
    args = parser.parse_args()
    sizes = QUICK if args.quick else FULL
    big = args.rows or sizes["big"]
    m = sizes["m"]
    skip = set(args.skip.split(","))
    args.data.mkdir(parents=True, exist_ok=True)
    print(f"dask_scale: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit "
          f"{commit()}, {os.cpu_count()} cores, {args.workers} workers x "
          f"{args.memory_limit}, load {load()}")
    x_dir, y_dir = write_table(args.data, big, min(args.chunk, big))
    client = cluster(args)
    try:
        # the workers compile (or load from numba's cache) the kernels on a tiny table first
        equality(client, 300, 5, 10, show=False)
        if "a" not in skip:
            equality(client, *sizes["medium"])
        if "c" not in skip:
            print(f"\n(c) time against rows: ReliefF k=10, m = {m}, {A} float32 attributes "
                  f"from disk, partitions of {args.chunk:,} rows, load {load()}")
            print("| rows | Dask | workers' peak memory (sum / largest) | one machine | "
                  "Dask / one machine | max abs difference |")
            print("|---|---|---|---|---|---|")
            for n in sizes["rows"]:
                scores, elapsed, total, single = relieff_on_disk(client, x_dir, y_dir, n, m)
                row = (f"| {n:,} | {elapsed:.1f} s | {total / 1e9:.2f} GB / "
                       f"{single / 1e9:.2f} GB |")
                if n <= sizes["single"]:
                    ref, t_single = single_machine(x_dir, y_dir, n, m)
                    row += (f" {t_single:.1f} s | {elapsed / t_single:.2f} | "
                            f"{np.max(np.abs(scores - ref)):.1e} |")
                else:
                    row += " – | – | – |"
                print(row, flush=True)
        if "d" not in skip:
            n = sizes["rows"][-1]
            fraction, returned, idle = cancel_latency(client, x_dir, y_dir, n, m,
                                                      after=1.0 if args.quick else 10.0)
            print(f"\n(d) cancel: the callback raised at {100 * fraction:.0f} % of ReliefF on "
                  f"{n:,} rows; the call returned {returned:.2f} s later, the workers were "
                  f"idle {idle:.2f} s later; load {load()}", flush=True)
        if "e" not in skip:
            n = sizes["parquet"]
            t_parquet, d_parquet, t_sklearn, d_sklearn, t_single = parquet_and_sklearn(
                client, x_dir, y_dir, args.data, n, m)
            print(f"\n(e) {n:,} rows, ReliefF k=10, m = {m}, load {load()}")
            print("| route | seconds | / one machine | max abs difference |")
            print("|---|---|---|---|")
            print(f"| Parquet folder, parquet_dask + estimate (as rank --dask) | "
                  f"{t_parquet:.1f} | {t_parquet / t_single:.2f} | {d_parquet:.1e} |")
            print(f"| scikit-learn ReliefF(backend='dask') | {t_sklearn:.1f} | "
                  f"{t_sklearn / t_single:.2f} | {d_sklearn:.1e} |")
            print(f"| one machine, in memory | {t_single:.1f} | 1 | 0 |", flush=True)
        if "b" not in skip:
            from dask.utils import parse_bytes
            size, hold = big * A * 4, args.workers * parse_bytes(args.memory_limit)
            print(f"\n(b) {big:,} x {A} float32 = {size / 1e9:.1f} GB on disk "
                  f"({size / hold:.1f} x what the {args.workers} workers x {args.memory_limit} "
                  f"may hold), ReliefF k=10, m = {m}, load {load()}")
            scores, elapsed, total, single = relieff_on_disk(client, x_dir, y_dir, big, m,
                                                             bar=True)
            top = np.argsort(-scores)[:3]
            print(f"finished in {elapsed:.0f} s; workers' peak resident memory {total / 1e9:.2f}"
                  f" GB (largest worker {single / 1e9:.2f} GB); best attributes {top.tolist()} "
                  f"({np.round(scores[top], 4).tolist()}), the rest at most "
                  f"{np.max(np.delete(scores, top[:2])):.4f}; load {load()}")
    finally:
        client.close()
        client.cluster.close()


if __name__ == "__main__":
    main()

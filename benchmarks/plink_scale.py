"""PLINK genotypes from a .bed file: time and peak memory of ReliefF and MultiSURF, read by
:func:`orangecontrib.relief.readers.read_plink` (two bits a genotype: packed into bit planes as
read), on one machine and on Dask, with the peers on the same genotypes.

Usage::

    python benchmarks/plink_scale.py              # 2,000 x 100,000 SNPs, peers on 1,000 x 10,000
    python benchmarks/plink_scale.py --quick      # 500 x 10,000, peers on 300 x 2,000
    python benchmarks/plink_scale.py --large      # also 10,000 x 500,000 with m = 1,000
    python benchmarks/plink_scale.py --dask       # also ReliefF m = 100 on two 2 GB workers
                                                  # (with --large: the large panel there too)
    python benchmarks/plink_scale.py --cases large --large-estimators ReliefF   # one part

The genotypes are random 0/1/2 with a case/control phenotype that follows two SNPs (their XOR),
written once into ``--workdir`` (default: a temporary folder) by bed-reader's own writer. Every
case runs in a child process, so that its peak resident memory (``ru_maxrss``) is its own:
reading the file plus the estimator (on Dask: the client's process, and each worker's own
peak in brackets). Peers (installed from PyPI, ``pip install
'Orange3-Relief[bench]'``): fast-select's ReliefF (numba, float64 in memory) and
scikit-rebate's ReliefF and MultiSURF, on the largest table they finish in minutes here; ours
is timed on the same .bed there, and the ratio printed. The machine load (``os.getloadavg``)
is printed next to the figures.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

SEED = 0
#: (individuals, SNPs) of the main table, of the peers' table, and m for the large case
PLANS = {
    "full": dict(main=(2_000, 100_000), peers=(1_000, 10_000), large=(10_000, 500_000)),
    "quick": dict(main=(500, 10_000), peers=(300, 2_000), large=(2_000, 50_000)),
}
LARGE_M = 1_000
DASK_M = 100


def write_bed(path, n, a, seed=SEED):
    """A .bed/.bim/.fam set of n individuals and a random SNPs (0/1/2), written a block of SNPs
    at a time; the phenotype (1 control, 2 case) is the XOR of SNPs 0 and 1 being non-zero."""
    from bed_reader import create_bed
    if os.path.exists(path):
        return path
    rng = np.random.default_rng(seed)
    first = rng.integers(0, 3, size=(n, 2))
    pheno = 1 + ((first[:, 0] > 0) ^ (first[:, 1] > 0)).astype(int)
    with create_bed(path, iid_count=n, sid_count=a, properties={
            "pheno": [str(p) for p in pheno]}) as writer:
        writer.write(first[:, 0].astype(np.int8))
        writer.write(first[:, 1].astype(np.int8))
        for lo in range(2, a, 1000):
            block = rng.integers(0, 3, size=(n, min(1000, a - lo))).astype(np.int8)
            for column in block.T:
                writer.write(column)
    return path


def child(case, path, extra):
    """Run one case in this process; print a JSON line with its seconds (imports and a
    peer's compilation not counted), peak memory and top-2 SNPs."""
    if case in ("ReliefF", "MultiSURF"):
        from orangecontrib.relief.estimators.relieff import ReliefF
        from orangecontrib.relief.estimators.surf import MultiSURF
        from orangecontrib.relief.readers import read_plink
        start = time.perf_counter()             # (the imports are not timed)
        m = extra or None
        data = read_plink(path)
        read = time.perf_counter() - start
        estimator = ReliefF(k=10, iterations=m, random_state=SEED) if case == "ReliefF" \
            else MultiSURF(iterations=m, random_state=SEED)
        scores = estimator(data)
    elif case in ("dask", "dask-MultiSURF"):
        from distributed import Client, LocalCluster
        from orangecontrib.relief.dask import estimate
        from orangecontrib.relief.estimators.relieff import ReliefF
        from orangecontrib.relief.estimators.surf import MultiSURF
        from orangecontrib.relief.readers import plink_dask
        start = time.perf_counter()
        X, y, n_classes, _ = plink_dask(path)
        read = 0.0
        with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="2GB") as cluster, \
                Client(cluster) as client:
            estimator = ReliefF(k=10, iterations=extra, random_state=SEED) if case == "dask" \
                else MultiSURF(iterations=extra, random_state=SEED)
            scores = estimate(estimator, X, y, discrete=True, n_values=3, n_classes=n_classes,
                              client=client)
            workers = client.run(lambda: resource.getrusage(
                resource.RUSAGE_SELF).ru_maxrss / 1024)
    else:                                           # a peer on the genotypes read as floats
        import fast_select
        import skrebate
        from bed_reader import open_bed
        if case == "fast-select":                   # its kernels compiled before the clock
            tiny = np.random.default_rng(SEED).integers(0, 3, size=(40, 8)).astype(float)
            fast_select.ReliefF(n_neighbors=3, backend="cpu").fit(tiny, np.arange(40) % 2)
        start = time.perf_counter()
        with open_bed(path) as bed:
            X = bed.read(dtype="float64")
            y = np.array([int(p) - 1 for p in bed.pheno])
        read = time.perf_counter() - start
        if case == "fast-select":
            scores = fast_select.ReliefF(n_neighbors=10, backend="cpu").fit(
                X, y).feature_importances_
        else:
            peer = {"skrebate-ReliefF": lambda: skrebate.ReliefF(n_neighbors=10),
                    "skrebate-MultiSURF": skrebate.MultiSURF}[case]()
            scores = peer.fit(X, y).feature_importances_
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "read": read,
                      "workers_mb": sorted(workers.values()) if case.startswith("dask") else [],
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "top": [int(i) for i in np.argsort(-np.asarray(scores))[:2]]}))


def measure(case, path, extra=0, timeout=3600, kernels=None):
    """(result dict with peak_mb, or None and the reason) of a case in a child process;
    ``kernels``: its ``ORANGE_RELIEF_KERNELS`` mode (default: the package's)."""
    command = [sys.executable, __file__, "--child", case, path, str(extra)]
    env = dict(os.environ, **({"ORANGE_RELIEF_KERNELS": kernels} if kernels else {}))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        return None, f"over {timeout} s"
    if done.returncode:
        return None, done.stderr.strip().splitlines()[-1] if done.stderr else "failed"
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


def row(label, result, why="", against=None):
    if result is None:
        return f"| {label} | - | - | - | {why} |"
    ratio = f"{result['seconds'] / against:.1f}" if against else "1"
    workers = ", ".join(f"{mb:.0f}" for mb in result["workers_mb"])
    return (f"| {label} | {result['seconds']:.1f} | {result['read']:.1f} | "
            f"{result['peak_mb']:.0f}{f' (workers: {workers})' if workers else ''} | "
            f"top SNPs {result['top']}, x ours: {ratio} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small tables")
    parser.add_argument("--large", action="store_true", help="also the genome-wide panel")
    parser.add_argument("--dask", action="store_true", help="also ReliefF on Dask")
    parser.add_argument("--no-peers", action="store_true", help="only ours")
    parser.add_argument("--cases", default="main,peers",
                        help="parts to run: main, peers, dask, large (--dask and --large add "
                             "theirs)")
    parser.add_argument("--large-estimators", default="ReliefF,MultiSURF",
                        help="estimators of the large case")
    parser.add_argument("--workdir", default=None, help="where the .bed files are kept")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        case, path, extra = args.child
        return child(case, path, int(extra))
    plan = PLANS["quick" if args.quick else "full"]
    cases = set(args.cases.split(","))
    cases |= {name for name, wanted in (("dask", args.dask), ("large", args.large)) if wanted}
    workdir = args.workdir or tempfile.mkdtemp(prefix="plink_scale_")
    os.makedirs(workdir, exist_ok=True)
    print(f"load average before: {os.getloadavg()}; cores: {os.cpu_count()}")
    print("| case | seconds (read + rank) | of which reading | peak MB | notes |")
    print("|---|---|---|---|---|")
    # the warm-up compiles the kernels once (numba caches them), so no case pays for it: on
    # small data the package answers with numpy equivalents instead, so the compiled kernels
    # are asked for
    small = write_bed(os.path.join(workdir, "warm.bed"), 200, 640)
    for case in ("ReliefF", "MultiSURF"):
        for m in (0, 50):
            measure(case, small, m, kernels="compiled")
    n, a = plan["main"]
    main_bed = write_bed(os.path.join(workdir, f"snp_{n}x{a}.bed"), n, a) \
        if cases & {"main", "dask"} else None
    for case in ("ReliefF", "MultiSURF") if "main" in cases else ():
        result, why = measure(case, main_bed)
        print(row(f"ours {case}, {n:,} x {a:,}, m = all", result, why), flush=True)
    if "peers" in cases and not args.no_peers:
        n, a = plan["peers"]
        peers_bed = write_bed(os.path.join(workdir, f"snp_{n}x{a}.bed"), n, a)
        ours, _ = measure("ReliefF", peers_bed)
        print(row(f"ours ReliefF, {n:,} x {a:,}", ours), flush=True)
        ours_ms, _ = measure("MultiSURF", peers_bed)
        print(row(f"ours MultiSURF, {n:,} x {a:,}", ours_ms), flush=True)
        for peer, base in (("fast-select", ours), ("skrebate-ReliefF", ours),
                           ("skrebate-MultiSURF", ours_ms)):
            result, why = measure(peer, peers_bed, timeout=1800)
            print(row(f"{peer}, {n:,} x {a:,}", result, why, base and base["seconds"]),
                  flush=True)
    if "dask" in cases:
        result, why = measure("dask", main_bed, DASK_M)
        n, a = plan["main"]
        print(row(f"ours ReliefF on Dask (2 workers of 2 GB), {n:,} x {a:,}, m = {DASK_M}",
                  result, why), flush=True)
    if "large" in cases:
        n, a = plan["large"]
        large_bed = write_bed(os.path.join(workdir, f"snp_{n}x{a}.bed"), n, a)
        for case in args.large_estimators.split(","):
            result, why = measure(case, large_bed, LARGE_M, timeout=7200)
            print(row(f"ours {case}, {n:,} x {a:,}, m = {LARGE_M:,}", result, why),
                  flush=True)
        for case in args.large_estimators.split(",") if "dask" in cases else ():
            result, why = measure("dask" if case == "ReliefF" else f"dask-{case}", large_bed,
                                  LARGE_M, timeout=7200)
            print(row(f"ours {case} on Dask (2 workers of 2 GB), {n:,} x {a:,}, "
                      f"m = {LARGE_M:,}", result, why), flush=True)
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

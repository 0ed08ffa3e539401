"""Several threads computing at once (as several widgets on the canvas do) get the answers of
one thread, also under numba's "workqueue" threading layer, which aborts the process when two
threads launch parallel kernels at the same time unless the launches take turns."""
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import threading
    import numpy as np
    import numba
    from orangecontrib.relief import CoreTreeLearner, ObliviousTreeLearner
    from orangecontrib.relief.datasets import parity
    from orangecontrib.relief.estimators import encode
    from orangecontrib.relief.estimators.relieff import ReliefF
    from orangecontrib.relief.estimators.rrelieff import RReliefF
    from orangecontrib.relief.estimators.surf import MultiSURF

    rng = np.random.default_rng(0)
    X = rng.random((600, 12))
    classes = encode(X, (X[:, 0] > X[:, 1]).astype(int), n_classes=2)
    target = encode(X, X[:, 0] + X[:, 2], n_classes=0)
    table = parity(order=2, n_irrelevant=4, n_instances=120, random_state=0)
    codes = rng.integers(0, 3, (300, 80)).astype(float)      # SNPs: packed into bit planes
    snps = encode(codes, (codes[:, 0] > 0).astype(int), discrete=True, n_classes=2)
    B = rng.random((2000, 60))                               # the single-precision search
    big = encode(B, (B[:, 0] > B[:, 1]).astype(int), n_classes=2)
    big_target = encode(B, B[:, 0] + B[:, 2], n_classes=0)
    jobs = [lambda: ReliefF()(snps), lambda: MultiSURF()(snps), lambda: ReliefF()(classes), lambda: RReliefF()(target),
            lambda: MultiSURF()(classes), lambda: ReliefF(preset="corelearn")(classes),
            lambda: ObliviousTreeLearner()(table)(table),
            lambda: CoreTreeLearner()(table)(table), lambda: ReliefF()(big),
            lambda: RReliefF()(big_target)] * 2
    alone = [job() for job in jobs]
    together = [None] * len(jobs)

    def run(i):
        together[i] = jobs[i]()
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(alone, together))
    print(numba.threading_layer())
""")


def run_threads(layer):
    env = dict(os.environ, NUMBA_THREADING_LAYER=layer)
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)


def test_threads_computing_at_once_under_the_workqueue_layer():
    result = run_threads("workqueue")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "workqueue"


def test_threads_computing_at_once_under_the_default_layer():
    result = run_threads("default")
    assert result.returncode == 0, result.stderr[-2000:]

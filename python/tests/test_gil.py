"""A batch runs with the GIL released: another Python thread keeps running meanwhile, and
batches from several threads on one model are answered one at a time, each correctly."""
import threading
import time

import numpy as np

import zbddc
from conftest import SEEDS


def big_batch(cases):
    rng = np.random.default_rng(5)
    rows = np.column_stack([rng.integers(-1, 2, cases), rng.integers(-1, 2, cases),
                            np.full(cases, -1)])
    return rows


def test_python_runs_while_a_batch_does():
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    rows = big_batch(200_000)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        model.pr(rows)
        span["end"] = time.perf_counter()

    ticks = []
    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    inside = [t for t in ticks if span["start"] <= t <= span["end"]]
    duration = span["end"] - span["start"]
    longest_stall = max(np.diff([span["start"]] + inside + [span["end"]]))
    # With the GIL held during the library's work, this loop would stall for about that long.
    assert duration > 0.05
    assert longest_stall < duration / 2


def test_threads_share_a_model():
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    rows = big_batch(2000)
    expected = model.mar(rows).probabilities.copy()
    results = [None] * 4

    def work(i):
        results[i] = model.mar(rows).probabilities

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, expected)

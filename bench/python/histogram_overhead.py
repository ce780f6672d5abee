#!/usr/bin/env python3
"""What the Python module costs over C++: histograms of N x D uniform descriptors against K words
through bovw.Histogrammer.compute, against the same call's median time from C++ in bovw-bench
(its call_ms: Histogrammer::compute, checks included; the same problem size and distribution), run
just before by this script; and the throughput of two Python threads computing at once
(each with its own single-threaded Histogrammer, the GIL released) against one.

Usage: PYTHONPATH=build/python histogram_overhead.py --bench build/bovw-bench [--n 262144 --k 1024 --d 64]
       [--backend openmp-tiled] [--repetitions 5]
Targets (docs/PYTHON.md): Python within 3% of C++; two threads at least 1.8x one on two cores.
Both times are of the whole call, input checks included, after a warm-up call.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

import bovw


def timed(function, repetitions):
    function()  # warm-up: kernels built, pages touched
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cpp_ms(args):
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "bench.json")
        subprocess.run([args.bench, "--sizes", "%dx%d" % (args.n, args.k), "--dimension", str(args.d), "--variants",
                        args.backend, "--repetitions", str(args.repetitions), "--json", report],
                       check=True, capture_output=True)
        with open(report) as f:
            rows = [m for m in json.load(f)["measurements"] if "call_ms" in m]
    return rows[0]["call_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", help="the bovw-bench program (omit to time Python alone)")
    parser.add_argument("--n", type=int, default=262144)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--backend", default="openmp-tiled")
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()

    rng = np.random.default_rng(1)
    descriptors = rng.random((args.n, args.d), dtype=np.float32)
    vocabulary = bovw.Vocabulary(rng.random((args.k, args.d), dtype=np.float32))
    histogrammer = bovw.Histogrammer(vocabulary, args.backend)
    python_ms = 1e3 * timed(lambda: histogrammer.compute(descriptors), args.repetitions)
    print("%s, N=%d K=%d D=%d: Python %.1f ms per call" % (histogrammer.description, args.n, args.k, args.d,
                                                          python_ms))
    if args.bench:
        reference = cpp_ms(args)
        print("C++ (bovw-bench call_ms) %.1f ms: Python / C++ = %.3f (target <= 1.03)" %
              (reference, python_ms / reference))

    # Throughput: one thread, then two at once, each with its own one-thread histogrammer.
    own = [bovw.Histogrammer(vocabulary, args.backend, threads=1) for _ in range(2)]
    one = timed(lambda: own[0].compute(descriptors), args.repetitions)

    def both():
        workers = [threading.Thread(target=h.compute, args=(descriptors,)) for h in own]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    two = timed(both, args.repetitions)
    print("threads=1 histogrammers: one call %.1f ms; two threads at once %.1f ms: %.2fx one thread's throughput "
          "(target >= 1.8 on 2 cores; %d cores here)" % (1e3 * one, 1e3 * two, 2 * one / two, os.cpu_count()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

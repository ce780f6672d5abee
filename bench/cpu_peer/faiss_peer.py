#!/usr/bin/env python3
"""bovw's CPU backends against FAISS's exact nearest-neighbour search, timed in one run.

One data set (default: N = 262,144 descriptors and K = 1,024 words, D = 64, float32 uniform in [0, 1),
seeded; or --descriptors/--vocabulary), three contenders, alternating runs (the order rotates every
round), the median of --repeats runs each:

  openmp-tiled  the whole process `bovw histogram --descriptors X.npy --vocabulary C.npy --output H.npy
                --backend openmp-tiled --threads T` (wall clock: start-up, .npy loading, validation,
                the search, writing H.npy)
  openmp        the same process with --backend openmp, the golden path
  faiss         faiss.IndexFlatL2(D), add(C), search(X, k=1): the search() call is timed inside a
                child process (so without Python start-up, imports, loading and saving, which are
                reported apart as the child's whole wall clock). FAISS runs with OpenBLAS when Debian's
                libopenblas0-pthread is installed (its directory first on LD_LIBRARY_PATH; the child
                reports the BLAS it mapped), faiss.omp_set_num_threads(T), OPENBLAS_NUM_THREADS=T.

A small bovw run (the same vocabulary, 1 descriptor) gives the fixed cost of the bovw process.

Checks, outside the timed runs: openmp-tiled's assignments and histogram must equal the golden path's
exactly (the script exits 1 otherwise); FAISS's nearest words are compared with the golden ones and
the differences counted (the expanded form ||c||^2 - 2x.c on BLAS rounds differently on near-ties).

Each run also records the CPU seconds that other processes used meanwhile (from /proc/stat), so a
run disturbed by other work on the machine can be recognised.

Prints a Markdown table; --json FILE also writes the results (--json - : JSON on stdout only).

Usage: faiss_peer.py [--bovw build/bovw] [--workdir DIR] [--n 262144] [--k 1024] [--d 64]
         [--descriptors X.npy --vocabulary C.npy] [--threads 2] [--repeats 7] [--seed 1]
         [--python /usr/bin/python3] [--json FILE]
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "retrieval"))
# Shared with the k-means comparison: /proc/stat accounting, the OpenBLAS environment for FAISS, the
# BLAS a process mapped, the machine description and finding a Python with faiss. (Importing it also
# re-executes this script under Debian's /usr/bin/python3 when this Python has no numpy.)
import faiss_kmeans_compare as peer  # noqa: E402
import numpy as np  # noqa: E402

KERNEL_LINE = re.compile(r"kernel ([0-9.]+) ms")
RECHECK_LINE = re.compile(r"re-check ([0-9.]+) ms, (\d+) rows")
CONTENDERS = ["openmp-tiled", "openmp", "faiss"]


def log(message):
    print(f"[faiss_peer] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# The FAISS child: one timed search per process

def faiss_worker(args):
    import faiss  # noqa: imported here so the parent does not need it

    start = time.perf_counter()
    x = np.load(args.descriptors)
    c = np.load(args.vocabulary)
    faiss.omp_set_num_threads(args.threads)
    t0 = time.perf_counter()
    index = faiss.IndexFlatL2(c.shape[1])
    index.add(c)
    t1 = time.perf_counter()
    _, nearest = index.search(x, 1)
    t2 = time.perf_counter()
    if args.faiss_output:
        np.save(args.faiss_output, nearest[:, 0].astype(np.int32))
    blas = peer.loaded_blas()
    json.dump({"search_ms": (t2 - t1) * 1e3, "add_ms": (t1 - t0) * 1e3, "load_ms": (t0 - start) * 1e3,
               "faiss_version": faiss.__version__, "blas": blas, "omp_max_threads": faiss.omp_get_max_threads()},
              sys.stdout)


# ---------------------------------------------------------------------------------------------
# Timed runs

def timed_process(command, env=None):
    usage, busy = peer.children_cpu_s(), peer.system_busy_s()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    cpu = peer.children_cpu_s() - usage
    if done.returncode != 0:
        raise SystemExit(f"faiss_peer: {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    return done, {"wall_ms": wall * 1e3, "cpu_s": cpu,
                  "other_processes_cpu_s": max(0.0, peer.system_busy_s() - busy - cpu)}


def bovw_command(args, backend, descriptors, output, assignments=None):
    command = [args.bovw, "histogram", "--descriptors", descriptors, "--vocabulary", args.vocabulary,
               "--output", output, "--backend", backend, "--threads", str(args.threads)]
    if assignments:
        command += ["--assignments", assignments]
    return command


def run_bovw(args, backend):
    done, result = timed_process(bovw_command(args, backend, args.descriptors, os.path.join(args.workdir, "H.npy")),
                                 env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
    text = done.stdout + done.stderr
    if m := KERNEL_LINE.search(text):
        result["kernel_ms"] = float(m.group(1))
    if m := RECHECK_LINE.search(text):
        result["recheck_ms"], result["rechecked_rows"] = float(m.group(1)), int(m.group(2))
    result["ms"] = result["wall_ms"]
    return result


def run_faiss(args, output=None):
    command = [args.python, os.path.abspath(__file__), "--faiss-worker", "--descriptors", args.descriptors,
               "--vocabulary", args.vocabulary, "--threads", str(args.threads)]
    if output:
        command += ["--faiss-output", output]
    done, result = timed_process(command, env=peer.blas_env("openblas" if peer.openblas_dir() else "system",
                                                            args.threads))
    result.update(json.loads(done.stdout))
    result["process_wall_ms"] = result.pop("wall_ms")
    result["ms"] = result["search_ms"]
    return result


def run(args, contender):
    return run_faiss(args) if contender == "faiss" else run_bovw(args, contender)


# ---------------------------------------------------------------------------------------------
# Report

def markdown(results):
    s = results["summary"]
    out = [f"{results['date']}, {results['machine']['cpu']}, {results['machine']['cores']} cores, "
           f"{results['threads']} threads; N = {results['data']['n']}, K = {results['data']['k']}, "
           f"D = {results['data']['d']} ({results['data']['source']}); median of {results['repeats']} alternating runs; "
           f"load average at start {', '.join(f'{v:.2f}' for v in results['machine']['load_average_at_start'])}.",
           "",
           "| contender | what is timed | median ms | runs ms | others' CPU s (max) |",
           "|---|---|---|---|---|"]
    what = {"openmp-tiled": "bovw histogram process", "openmp": "bovw histogram process",
            "faiss": "IndexFlatL2.search(k=1) call"}
    for c in CONTENDERS:
        r = results["runs"][c]
        out.append(f"| {c} | {what[c]} | {s[c]['median_ms']:.1f} | {', '.join(f'{v:.0f}' for v in r['ms'])} | "
                   f"{max(r['other_processes_cpu_s']):.2f} |")
    out.append("")
    out.append(f"FAISS search / bovw openmp-tiled process: **{s['faiss_over_tiled']:.2f}x**; "
               f"openmp / openmp-tiled process: {s['openmp_over_tiled']:.2f}x; "
               f"FAISS child process wall (Python start, import, load, search, save) median "
               f"{s['faiss_process_wall_median_ms']:.0f} ms.")
    out.append(f"bovw process with 1 descriptor (start-up, vocabulary, write): median {s['bovw_floor_median_ms']:.0f} ms; "
               f"in-process search (kernel) median: openmp-tiled {s['openmp-tiled']['kernel_median_ms']:.1f} ms "
               f"(re-checked rows {s['openmp-tiled'].get('rechecked_rows', 'n/a')}), "
               f"openmp {s['openmp']['kernel_median_ms']:.1f} ms.")
    chk = results["checks"]
    out.append(f"Checks: openmp-tiled vs openmp assignments differ in {chk['tiled_vs_golden_differences']} rows, "
               f"histograms equal: {chk['tiled_histogram_equal']}; FAISS vs openmp: "
               f"{chk['faiss_vs_golden_differences']} of {results['data']['n']} rows differ. "
               f"FAISS {results['faiss']['version']}, BLAS {', '.join(results['faiss']['blas']) or 'none mapped'}.")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bovw", help="the bovw program (default: build/bovw beside the repository)")
    parser.add_argument("--workdir", help="where the data and outputs go (default: a temporary folder)")
    parser.add_argument("--descriptors", help="float32 N x D .npy (default: generated)")
    parser.add_argument("--vocabulary", help="float32 K x D .npy (default: generated)")
    parser.add_argument("--n", type=int, default=262144)
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per contender (median; at least 5)")
    parser.add_argument("--python", help="Python for the FAISS child (default: one that has faiss)")
    parser.add_argument("--json", help="write the results as JSON to this file ('-': stdout, no table)")
    parser.add_argument("--faiss-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--faiss-output", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.faiss_worker:
        faiss_worker(args)
        return
    if args.repeats < 5:
        raise SystemExit("faiss_peer: --repeats must be at least 5")
    if (args.descriptors is None) != (args.vocabulary is None):
        raise SystemExit("faiss_peer: give both --descriptors and --vocabulary, or neither")

    args.python = args.python or peer.faiss_python()
    repository = os.path.dirname(os.path.dirname(HERE))
    args.bovw = os.path.abspath(args.bovw or os.path.join(repository, "build", "bovw"))
    if not os.access(args.bovw, os.X_OK):
        raise SystemExit(f"faiss_peer: no bovw program at {args.bovw} (use --bovw)")
    args.workdir = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="bovw_faiss_peer_"))
    os.makedirs(args.workdir, exist_ok=True)

    if args.descriptors:
        args.descriptors, args.vocabulary = os.path.abspath(args.descriptors), os.path.abspath(args.vocabulary)
        source = f"{args.descriptors}, {args.vocabulary}"
    else:
        rng = np.random.default_rng(args.seed)
        args.descriptors = os.path.join(args.workdir, "X.npy")
        args.vocabulary = os.path.join(args.workdir, "C.npy")
        np.save(args.descriptors, rng.random((args.n, args.d), dtype=np.float32))
        np.save(args.vocabulary, rng.random((args.k, args.d), dtype=np.float32))
        source = f"uniform [0, 1), seed {args.seed}"
    x_shape = np.load(args.descriptors, mmap_mode="r").shape
    c_shape = np.load(args.vocabulary, mmap_mode="r").shape
    tiny = os.path.join(args.workdir, "X1.npy")
    np.save(tiny, np.ascontiguousarray(np.load(args.descriptors, mmap_mode="r")[:1]))

    results = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": peer.machine(),
               "threads": args.threads, "repeats": args.repeats, "bovw": args.bovw, "python": args.python,
               "data": {"n": int(x_shape[0]), "d": int(x_shape[1]), "k": int(c_shape[0]), "source": source},
               "commands": {c: " ".join(bovw_command(args, c, args.descriptors, "H.npy")) for c in CONTENDERS[:2]}}

    # Checks (untimed; they also warm the page cache and FAISS's imports).
    log("checking assignments ...")
    words = {}
    for backend in ("openmp", "openmp-tiled"):
        a, h = os.path.join(args.workdir, f"A_{backend}.npy"), os.path.join(args.workdir, f"H_{backend}.npy")
        timed_process(bovw_command(args, backend, args.descriptors, h, a))
        words[backend] = (np.load(a), np.load(h))
    faiss_words = os.path.join(args.workdir, "A_faiss.npy")
    check = run_faiss(args, faiss_words)
    golden = words["openmp"][0]
    results["checks"] = {
        "tiled_vs_golden_differences": int((words["openmp-tiled"][0] != golden).sum()),
        "tiled_histogram_equal": bool(np.array_equal(words["openmp-tiled"][1], words["openmp"][1])),
        "faiss_vs_golden_differences": int((np.load(faiss_words) != golden).sum())}
    results["faiss"] = {"version": check["faiss_version"], "blas": check["blas"],
                        "omp_max_threads": check["omp_max_threads"]}
    log(f"checks: {results['checks']}")

    # Timed runs, alternating, the order rotating every round; then the 1-descriptor bovw floor.
    runs = {c: [] for c in CONTENDERS}
    for round_ in range(args.repeats):
        order = CONTENDERS[round_ % 3:] + CONTENDERS[:round_ % 3]
        for c in order:
            r = run(args, c)
            runs[c].append(r)
        log(f"round {round_ + 1}/{args.repeats}: " + ", ".join(f"{c} {runs[c][-1]['ms']:.0f} ms" for c in CONTENDERS))
    floor = []
    for _ in range(args.repeats):
        _, r = timed_process(bovw_command(args, "openmp-tiled", tiny, os.path.join(args.workdir, "H1.npy")))
        floor.append(r["wall_ms"])

    results["runs"] = {c: {key: [r.get(key) for r in rs] for key in rs[0]} for c, rs in runs.items()}
    median = lambda values: float(np.median([v for v in values if v is not None])) if any(
        v is not None for v in values) else None
    summary = {c: {"median_ms": median(results["runs"][c]["ms"])} for c in CONTENDERS}
    for c in CONTENDERS[:2]:
        summary[c]["kernel_median_ms"] = median(results["runs"][c].get("kernel_ms", [None]))
    if "rechecked_rows" in results["runs"]["openmp-tiled"]:
        summary["openmp-tiled"]["rechecked_rows"] = results["runs"]["openmp-tiled"]["rechecked_rows"][0]
    summary["faiss_over_tiled"] = summary["faiss"]["median_ms"] / summary["openmp-tiled"]["median_ms"]
    summary["openmp_over_tiled"] = summary["openmp"]["median_ms"] / summary["openmp-tiled"]["median_ms"]
    summary["faiss_process_wall_median_ms"] = median(results["runs"]["faiss"]["process_wall_ms"])
    summary["bovw_floor_median_ms"] = float(np.median(floor))
    summary["bovw_floor_ms"] = floor
    results["summary"] = summary
    results["machine"]["load_average_at_end"] = os.getloadavg()

    ok = results["checks"]["tiled_vs_golden_differences"] == 0 and results["checks"]["tiled_histogram_equal"]
    if args.json == "-":
        json.dump(results, sys.stdout, indent=2)
        print()
    else:
        print(markdown(results))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=2)
    if not ok:
        raise SystemExit("faiss_peer: openmp-tiled differs from the golden path")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""bovw's k-means against FAISS's on the same descriptor sample, K and number of iterations.

The sample (default): SURF descriptors of a UKBench-style set made by make_ukbench_set.py from
Debian's opencv-doc images (`bovw extract DIR -o D --format npy`), stacked and subsampled to
--max-rows rows with a fixed seed, saved as WORKDIR/sample.npy (or give one with --sample).

For every K and seed, both tools run exactly --iterations Lloyd iterations (bovw: --tolerance -1;
FAISS has no early stop):
  bovw   `bovw train --descriptors sample.npy --words K --iterations I --tolerance -1 --seed S
          --backend openmp --threads T`, timed as a process (wall clock). Its per-iteration log lines
          ("k-means iteration N: ... S s") give the Lloyd time; the time before the first one, less
          the start-up of a K = 1 run (load the .npy, no seeding), is the k-means++ seeding time.
  FAISS  faiss.Kmeans(d, K, niter=I, seed=S, max_points_per_centroid=ceil(N/K)+1) so it trains on
          the whole sample, faiss.omp_set_num_threads(T); the train() call is timed. It runs in a child
          process once per BLAS (--faiss-blas): "system" is whatever libblas.so.3 Debian points at
          (reference BLAS unless an optimised one is installed), "openblas" puts Debian's
          libopenblas0-pthread first on LD_LIBRARY_PATH (OPENBLAS_NUM_THREADS=T) if it is installed.
          The child is the first Python that has the faiss module (this one, else /usr/bin/python3,
          where Debian's python3-faiss installs it; --python to choose).
Both vocabularies are then scored the same way, independently of either tool's own reporting: the
exact nearest centroid of every sample row (float64 GEMM for the arg-min, then the float64 squared
distance to that centroid computed directly) summed in float64 (with OpenBLAS when installed: the
script re-executes itself with it).

The machine may be shared: --repeats R times every run R times and keeps the fastest, and each row
reports the CPU seconds that other processes used meanwhile (from /proc/stat), so a noisy number can
be recognised and re-measured.

Note: FAISS seeds with K random sample rows; bovw seeds with k-means++. Different seeds give
different local optima, hence several seeds.

Prints a Markdown table (stdout); --json FILE also writes the results (--json - : JSON on stdout).

Usage: faiss_kmeans_compare.py [--bovw build/bovw] [--workdir DIR] [--images DIR | --sample NPY]
         [--max-rows 200000] [--words 256,1000] [--iterations 20] [--seeds 1,2] [--threads 2]
         [--repeats 1] [--faiss-blas system,openblas] [--python /usr/bin/python3] [--json FILE]
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time

try:
    import numpy as np
except ImportError:  # a Python without numpy (pyenv, venv): Debian's has numpy, cv2 and faiss
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

HERE = os.path.dirname(os.path.abspath(__file__))
OPENBLAS_DIRS = ["/usr/lib/x86_64-linux-gnu/openblas-pthread", "/usr/lib/x86_64-linux-gnu/openblas-openmp",
                 "/usr/lib/aarch64-linux-gnu/openblas-pthread"]
ITERATION_LINE = re.compile(r"k-means iteration (\d+): inertia ([0-9.eE+-]+).*?, ([0-9.]+) s\s*$")
EVAL_MARKER = "BOVW_KMEANS_COMPARE_EVAL_BLAS"


def log(message):
    print(f"[faiss_kmeans_compare] {message}", file=sys.stderr, flush=True)


def faiss_python():
    """A Python interpreter that can import faiss: this one, else Debian's."""
    import importlib.util
    if importlib.util.find_spec("faiss") is not None:
        return sys.executable
    if os.path.exists("/usr/bin/python3"):
        return "/usr/bin/python3"
    raise SystemExit("faiss_kmeans_compare: no Python with the faiss module (apt-get install python3-faiss)")


def system_busy_s():
    """CPU seconds all processes have used so far (from /proc/stat), to see how busy the machine was."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def children_cpu_s():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def openblas_dir():
    for d in OPENBLAS_DIRS:
        if os.path.exists(os.path.join(d, "libblas.so.3")):
            return d
    return None


def loaded_blas():
    """The BLAS shared object this process has mapped (after numpy/faiss are imported)."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line.split()[-1]}
    return sorted(paths)


def blas_env(variant, threads):
    """Environment for a child process using one BLAS variant."""
    env = dict(os.environ)
    env.pop(EVAL_MARKER, None)
    paths = [p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p and "openblas" not in p]
    if variant == "openblas":
        d = openblas_dir()
        if d is None:
            raise SystemExit("faiss_kmeans_compare: --faiss-blas openblas needs Debian's libopenblas0-pthread")
        paths.insert(0, d)
    env["LD_LIBRARY_PATH"] = ":".join(paths)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = str(threads)
    return env


# ---------------------------------------------------------------------------------------------
# The sample

def build_sample(args):
    path = os.path.join(args.workdir, "sample.npy")
    images = args.images
    if images is None:
        images = os.path.join(args.workdir, "images")
        if not os.path.isdir(images):
            log(f"making the UKBench-style set in {images}")
            subprocess.run([args.python, os.path.join(HERE, "make_ukbench_set.py"), images], check=True,
                           stdout=sys.stderr)
    descriptors = os.path.join(args.workdir, "descriptors")
    log(f"extracting SURF descriptors of {images} to {descriptors}")
    subprocess.run([args.bovw, "extract", images, "-o", descriptors, "--format", "npy"], check=True,
                   stdout=subprocess.DEVNULL)
    files = sorted(f for f in os.listdir(descriptors) if f.endswith(".npy"))
    parts = [np.load(os.path.join(descriptors, f)) for f in files]
    x = np.concatenate([p for p in parts if p.size], axis=0).astype(np.float32)
    total = x.shape[0]
    if total > args.max_rows:
        rng = np.random.default_rng(args.sample_seed)
        x = x[np.sort(rng.choice(total, size=args.max_rows, replace=False))]
    np.save(path, np.ascontiguousarray(x))
    log(f"sample: {x.shape[0]} x {x.shape[1]} of {total} descriptors from {len(files)} images -> {path}")
    return path, {"images": images, "image_count": len(files), "descriptors_total": int(total)}


# ---------------------------------------------------------------------------------------------
# Exact inertia

def exact_inertia(x, centroids, chunk=16384):
    """Sum over rows of the float64 squared distance to the nearest centroid (and the assignment)."""
    x64 = x.astype(np.float64)
    c64 = centroids.astype(np.float64)
    c_norms = (c64 * c64).sum(axis=1)
    total = 0.0
    for start in range(0, x64.shape[0], chunk):
        block = x64[start:start + chunk]
        scores = c_norms[None, :] - 2.0 * (block @ c64.T)  # ||x||^2 is constant per row
        nearest = scores.argmin(axis=1)
        diff = block - c64[nearest]
        total += float(np.einsum("ij,ij->i", diff, diff).sum())
    return total


# ---------------------------------------------------------------------------------------------
# Repeated timing: the fastest of `repeats` runs (the best estimate on a machine shared with other
# work), with every run's time kept.

def best_of(repeats, run, key):
    runs = [run() for _ in range(max(1, repeats))]
    best = dict(min(runs, key=lambda r: r[key]))
    best[key + "_all"] = [r[key] for r in runs]
    best[key + "_median"] = float(np.median(best[key + "_all"]))
    best["other_processes_cpu_s_all"] = [r["other_processes_cpu_s"] for r in runs]
    return best


# ---------------------------------------------------------------------------------------------
# bovw

def run_bovw(args, sample, words, seed, output):
    command = [args.bovw, "train", "--descriptors", sample, "--words", str(words), "--iterations",
               str(args.iterations), "--tolerance", "-1", "--seed", str(seed), "--output", output,
               "--backend", "openmp", "--threads", str(args.threads)]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    lines = []
    load = os.getloadavg()[0]
    usage = children_cpu_s()
    busy = system_busy_s()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def read(stream, tag):
        for line in stream:
            lines.append((time.perf_counter() - start, tag, line.rstrip("\n")))

    readers = [threading.Thread(target=read, args=(process.stdout, "out")),
               threading.Thread(target=read, args=(process.stderr, "err"))]
    for r in readers:
        r.start()
    rc = process.wait()
    wall = time.perf_counter() - start
    cpu = children_cpu_s() - usage
    others = system_busy_s() - busy - cpu
    for r in readers:
        r.join()
    if rc != 0:
        raise SystemExit("faiss_kmeans_compare: bovw failed:\n" + "\n".join(l for _, _, l in lines))
    iterations = []
    for t, tag, line in lines:
        m = ITERATION_LINE.search(line)
        if m:
            iterations.append({"iteration": int(m.group(1)), "inertia": float(m.group(2)),
                               "seconds": float(m.group(3)), "arrived_s": t})
    result = {"command": " ".join(command), "wall_s": wall, "iterations": len(iterations),
              "cpu_s": cpu, "other_processes_cpu_s": max(0.0, others), "load_average_1min_before": load}
    if iterations:
        result["lloyd_s"] = sum(i["seconds"] for i in iterations)
        result["before_first_iteration_s"] = iterations[0]["arrived_s"] - iterations[0]["seconds"]
        result["after_last_iteration_s"] = wall - iterations[-1]["arrived_s"]
        result["reported_inertia_last"] = iterations[-1]["inertia"]
        result["iteration_s"] = [i["seconds"] for i in iterations]
    return result


# ---------------------------------------------------------------------------------------------
# FAISS (child process, one per BLAS variant)

def faiss_worker(args):
    import faiss  # noqa: imported here so the parent does not need it

    x = np.load(args.sample)
    n, d = x.shape
    faiss.omp_set_num_threads(args.threads)
    kmeans = faiss.Kmeans(d, args.words, niter=args.iterations, seed=args.seed, verbose=False,
                          max_points_per_centroid=math.ceil(n / args.words) + 1)
    load = os.getloadavg()[0]
    cpu = time.process_time()
    start = time.perf_counter()
    kmeans.train(x)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    np.save(args.faiss_output, kmeans.centroids)
    json.dump({"train_s": seconds, "cpu_s": cpu, "load_average_1min_before": load, "reported_objective_last": float(kmeans.obj[-1]),
               "iterations": len(kmeans.obj), "faiss_version": faiss.__version__, "blas": loaded_blas(),
               "omp_max_threads": faiss.omp_get_max_threads()}, sys.stdout)


def run_faiss(args, sample, words, seed, variant, output):
    command = [args.python, os.path.abspath(__file__), "--faiss-worker", "--sample", sample, "--words",
               str(words), "--iterations", str(args.iterations), "--seeds", str(seed), "--threads",
               str(args.threads), "--faiss-output", output]
    usage, busy = children_cpu_s(), system_busy_s()
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, env=blas_env(variant, args.threads), check=True)
    result = json.loads(done.stdout)
    # CPU of other processes while the worker ran (its start-up and loading included in the window).
    result["other_processes_cpu_s"] = max(0.0, system_busy_s() - busy - (children_cpu_s() - usage))
    return result


# ---------------------------------------------------------------------------------------------
# Report

def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "platform": platform.platform(),
            "load_average_at_start": os.getloadavg()}


def markdown(results):
    repeats = results["repeats"]

    def timed(value, values):
        return f"{value:.2f}" if len(values) < 2 else f"{value:.2f} ({float(np.median(values)):.2f})"

    out = []
    out.append(f"Sample: {results['sample']['rows']} x {results['sample']['dimension']} float32 "
               f"({results['sample']['path']}); {results['iterations']} iterations, no early stop; "
               f"{results['threads']} threads; load average at start "
               f"{', '.join(f'{v:.2f}' for v in results['machine']['load_average_at_start'])}, at end "
               f"{', '.join(f'{v:.2f}' for v in results['machine']['load_average_at_end'])}.")
    if repeats > 1:
        out.append(f"Times: fastest of {repeats} runs (median in parentheses).")
    out.append("")
    out.append(f"bovw start-up (load the .npy, K = 1, no seeding): {results['bovw_startup_s']:.2f} s")
    out.append("")
    variants = results["faiss_blas"]
    header = ["K", "seed", "bovw inertia", "bovw wall s", "seeding s", "Lloyd s", "bovw CPU s", "others' CPU s"]
    for v in variants:
        header += [f"FAISS[{v}] inertia", f"FAISS[{v}] train s", f"FAISS[{v}] CPU s", "others' CPU s",
                   f"bovw vs FAISS[{v}] inertia", f"time ratio bovw/FAISS[{v}]"]
    out.append("| " + " | ".join(header) + " |")
    out.append("|" + "---|" * len(header))
    for run in results["runs"]:
        b = run["bovw"]
        row = [str(run["words"]), str(run["seed"]), f"{b['inertia']:.2f}", timed(b["wall_s"], b["wall_s_all"]),
               f"{b.get('seeding_s', float('nan')):.2f}", f"{b.get('lloyd_s', float('nan')):.2f}",
               f"{b['cpu_s']:.2f}", f"{b['other_processes_cpu_s']:.1f}"]
        for v in variants:
            f = run["faiss"][v]
            row += [f"{f['inertia']:.2f}", timed(f["train_s"], f["train_s_all"]), f"{f['cpu_s']:.2f}",
                    f"{f['other_processes_cpu_s']:.1f}", f"{run['relative_difference'][v] * 100:+.3f}%",
                    f"{run['time_ratio'][v]:.2f}"]
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append("Inertia: exact float64 sum of squared distances to the nearest centroid, computed here for both "
               "vocabularies. Relative difference: (bovw - FAISS) / FAISS, negative = bovw better. "
               "Time ratio: bovw process wall clock / FAISS train() call (fastest runs). bovw seeding: time before "
               "the first iteration less the K = 1 start-up. others' CPU s: CPU seconds that other processes used "
               "during the (fastest) run, from /proc/stat (0 on an otherwise idle machine). "
               "FAISS seeds with K random rows, bovw with k-means++.")
    out.append("")
    out.append("| K | mean bovw vs FAISS inertia | " + " | ".join(f"mean time ratio bovw/FAISS[{v}]" for v in variants)
               + " | mean bovw seeding share |")
    out.append("|---|---|" + "---|" * len(variants) + "---|")
    for k, s in results["summary"].items():
        diffs = ", ".join(f"{v}: {s['relative_difference'][v] * 100:+.3f}%" for v in variants)
        ratios = " | ".join(f"{s['time_ratio'][v]:.2f}" for v in variants)
        out.append(f"| {k} | {diffs} | {ratios} | {s['seeding_share'] * 100:.0f}% |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bovw", default=None, help="the bovw program (default: build/bovw beside the repository)")
    parser.add_argument("--workdir", help="where the set, descriptors, sample and vocabularies go (default: a temp dir)")
    parser.add_argument("--images", help="descriptor source folder (default: a make_ukbench_set.py set)")
    parser.add_argument("--sample", help="an existing float32 N x D .npy sample (skips extraction)")
    parser.add_argument("--max-rows", type=int, default=200000, help="subsample to this many rows")
    parser.add_argument("--sample-seed", type=int, default=0)
    parser.add_argument("--words", default="256,1000", help="comma-separated K values")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--seeds", default="1,2", help="comma-separated seeds (each run by both tools)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1,
                        help="time every run this many times and keep the fastest (the vocabularies are the same)")
    parser.add_argument("--faiss-blas", default=None,
                        help="comma-separated: system, openblas (default: both where openblas is installed)")
    parser.add_argument("--python", help="Python for the FAISS runs and make_ukbench_set.py (default: one with faiss)")
    parser.add_argument("--json", help="write the results as JSON to this file ('-': stdout, no table)")
    parser.add_argument("--faiss-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--faiss-output", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.faiss_worker:
        args.words = int(args.words)
        args.seed = int(args.seeds)
        faiss_worker(args)
        return

    # The exact inertia is a float64 GEMM: use OpenBLAS for it when installed (re-executing with it).
    if openblas_dir() and os.environ.get(EVAL_MARKER) != "1":
        env = blas_env("openblas", args.threads)
        env[EVAL_MARKER] = "1"
        os.execve(sys.executable, [sys.executable] + sys.argv, env)

    args.python = args.python or faiss_python()
    repository = os.path.dirname(os.path.dirname(HERE))
    args.bovw = os.path.abspath(args.bovw or os.path.join(repository, "build", "bovw"))
    if not os.access(args.bovw, os.X_OK):
        raise SystemExit(f"faiss_kmeans_compare: no bovw program at {args.bovw} (use --bovw)")
    args.workdir = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="bovw_faiss_kmeans_"))
    os.makedirs(args.workdir, exist_ok=True)
    variants = [v for v in (args.faiss_blas or ("system,openblas" if openblas_dir() else "system")).split(",") if v]
    words = [int(k) for k in args.words.split(",") if k]
    seeds = [int(s) for s in args.seeds.split(",") if s]

    results = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "machine": machine(),
               "iterations": args.iterations, "threads": args.threads, "repeats": args.repeats, "faiss_blas": variants,
               "bovw": args.bovw, "runs": []}
    if args.sample:
        sample_path, origin = os.path.abspath(args.sample), {"given": True}
    else:
        sample_path, origin = build_sample(args)
    x = np.load(sample_path)
    results["sample"] = dict(origin, path=sample_path, rows=int(x.shape[0]), dimension=int(x.shape[1]))
    results["evaluation_blas"] = loaded_blas()

    startup = best_of(args.repeats, lambda: run_bovw(args, sample_path, 1, 0, os.path.join(args.workdir, "k1.npy")),
                      "before_first_iteration_s")
    results["bovw_startup_s"] = startup["before_first_iteration_s"]
    log(f"bovw start-up (K = 1): {results['bovw_startup_s']:.2f} s")

    for k in words:
        for seed in seeds:
            run = {"words": k, "seed": seed, "faiss": {}, "relative_difference": {}, "time_ratio": {},
                   "time_ratio_train_only": {}}
            vocabulary = os.path.join(args.workdir, f"bovw_k{k}_s{seed}.npy")
            log(f"bovw K = {k} seed {seed} ...")
            b = best_of(args.repeats, lambda: run_bovw(args, sample_path, k, seed, vocabulary), "wall_s")
            b["seeding_s"] = max(0.0, b["before_first_iteration_s"] - results["bovw_startup_s"])
            b["train_s"] = b["seeding_s"] + b["lloyd_s"]
            b["inertia"] = exact_inertia(x, np.load(vocabulary))
            run["bovw"] = b
            log(f"  bovw: wall {b['wall_s']:.2f} s (seeding {b['seeding_s']:.2f} s, Lloyd {b['lloyd_s']:.2f} s, "
                f"CPU {b['cpu_s']:.2f} s, others' CPU {b['other_processes_cpu_s']:.1f} s), inertia {b['inertia']:.2f}")
            for v in variants:
                centroids = os.path.join(args.workdir, f"faiss_{v}_k{k}_s{seed}.npy")
                log(f"FAISS[{v}] K = {k} seed {seed} ...")
                f = best_of(args.repeats, lambda: run_faiss(args, sample_path, k, seed, v, centroids), "train_s")
                f["inertia"] = exact_inertia(x, np.load(centroids))
                run["faiss"][v] = f
                run["relative_difference"][v] = (b["inertia"] - f["inertia"]) / f["inertia"]
                run["time_ratio"][v] = b["wall_s"] / f["train_s"]
                run["time_ratio_train_only"][v] = b["train_s"] / f["train_s"]
                log(f"  FAISS[{v}]: train {f['train_s']:.2f} s (CPU {f['cpu_s']:.2f} s, others' CPU "
                    f"{f['other_processes_cpu_s']:.1f} s), inertia {f['inertia']:.2f} "
                    f"(bovw {run['relative_difference'][v] * 100:+.3f}%, time ratio {run['time_ratio'][v]:.2f})")
            results["runs"].append(run)

    results["summary"] = {}
    for k in words:
        runs = [r for r in results["runs"] if r["words"] == k]
        results["summary"][str(k)] = {
            "relative_difference": {v: float(np.mean([r["relative_difference"][v] for r in runs])) for v in variants},
            "time_ratio": {v: float(np.mean([r["time_ratio"][v] for r in runs])) for v in variants},
            "time_ratio_train_only": {v: float(np.mean([r["time_ratio_train_only"][v] for r in runs]))
                                      for v in variants},
            "seeding_share": float(np.mean([r["bovw"]["seeding_s"] / r["bovw"]["wall_s"] for r in runs])),
        }
    results["machine"]["load_average_at_end"] = os.getloadavg()

    if args.json == "-":
        json.dump(results, sys.stdout, indent=2)
        print()
        return
    print(markdown(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()

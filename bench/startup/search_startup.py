#!/usr/bin/env python3
"""Start-up of a one-shot `bovw search` of one image: process start to its first result line on stdout,
with the program cache cold (an empty BOVW_CACHE_DIR per run) and warm, for one or two bovw programs.

Usage: search_startup.py --index DB --query IMAGE --bovw NAME=PATH [--bovw NAME=PATH] [--repeats 7]
                         [--args "--backend opencl"] [--pocl-cache off|on]
Each round runs every configuration once, alternating, so that a busy machine slows them alike; the
median and range over the rounds are printed. PoCL's own kernel cache is disabled with --pocl-cache off
(POCL_KERNEL_CACHE=0), which is what a fresh machine or new build options see.
"""
import argparse
import os
import shlex
import statistics
import subprocess
import tempfile
import time


def first_result_ms(command, env):
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    first = None
    for number, line in enumerate(process.stdout):
        if number == 1 and first is None:  # line 0 is the CSV header
            first = (time.perf_counter() - start) * 1e3
    _, err = process.communicate()
    if process.returncode != 0 or first is None:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): {err.strip()}")
    return first


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", required=True)
    parser.add_argument("--query", required=True)
    parser.add_argument("--bovw", action="append", required=True, help="NAME=PATH of a bovw program")
    parser.add_argument("--args", default="", help="extra arguments of bovw search")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--pocl-cache", choices=["on", "off"], default="off")
    options = parser.parse_args()

    programs = [entry.split("=", 1) for entry in options.bovw]
    base_env = dict(os.environ)
    if options.pocl_cache == "off":
        base_env["POCL_KERNEL_CACHE"] = "0"
    with tempfile.TemporaryDirectory(prefix="bovw-startup-") as scratch:
        warm_dir = os.path.join(scratch, "warm")
        times = {}
        for round_number in range(options.repeats + 1):  # round 0 fills the warm caches and is not counted
            for name, path in programs:
                command = [path, "search", options.query, "--index", options.index, "--top", "3", "--quiet"]
                command += shlex.split(options.args)
                for cache in ("cold", "warm"):
                    env = dict(base_env)
                    if cache == "cold":
                        env["BOVW_CACHE_DIR"] = tempfile.mkdtemp(dir=scratch)
                    else:
                        env["BOVW_CACHE_DIR"] = os.path.join(warm_dir, name)
                    ms = first_result_ms(command, env)
                    if round_number > 0:
                        times.setdefault((name, cache), []).append(ms)
        for (name, cache), values in times.items():
            print(f"{name:>10} {cache:>4} cache: median {statistics.median(values):7.1f} ms "
                  f"(range {min(values):.1f}-{max(values):.1f}, {len(values)} runs)")


if __name__ == "__main__":
    main()

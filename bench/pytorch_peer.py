#!/usr/bin/env python3
"""PyTorch peer for `bovw-bench`: the same nearest-word histogram as GEMM + argmin + bincount.

Uses ||x - c||^2 = ||x||^2 - 2 x.c + ||c||^2 (||x||^2 does not change the argmin), timed with CUDA
events: median of --repetitions runs after --warmup runs, in each of --precisions: fp32 (TF32
disabled), tf32 (TF32 allowed in the GEMM), fp16 and bf16 (operands and GEMM in that type, FP32
accumulation). The reduced precisions are inexact: for each, the number of nearest words that
differ from a float64 computation of the same data is reported. Also measures the GPU's SGEMM rate
and device-copy bandwidth in the same process, for ratios. Prints a table and, with --json,
writes the results.
"""
import argparse
import json
import statistics
import sys

import torch


def timed(fn, warmup, repetitions):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repetitions):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times), max(times)


def nearest(x, c, c_norms):
    scores = torch.addmm(c_norms, x, c.t(), beta=1.0, alpha=-2.0)  # ||c||^2 - 2 x.c
    return scores.argmin(dim=1)


def histogram(x, c, c_norms):
    return torch.bincount(nearest(x, c, c_norms), minlength=c.shape[0])


def nearest_float64(x, c, chunk=65536):
    """Exact enough to judge the reduced precisions: the same expansion in float64, in chunks."""
    c64 = c.double()
    norms = (c64 * c64).sum(dim=1)
    return torch.cat([nearest(x[i:i + chunk].double(), c64, norms) for i in range(0, x.shape[0], chunk)])


def operands(precision, x, c):
    """The GEMM's inputs in the precision's type (TF32 is a GEMM mode of FP32 inputs)."""
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    kind = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision, torch.float32)
    xs, cs = x.to(kind), c.to(kind)
    return xs, cs, (c * c).sum(dim=1).to(kind)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="4096x8,4096x16,4096x64,4096x128,4096x256,16384x8,16384x16,"
                        "16384x64,16384x128,16384x256,65536x8,65536x16,65536x64,65536x128,65536x256,1048576x1024")
    parser.add_argument("--dimension", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--precisions", default="fp32", help="comma-separated: fp32, tf32, fp16, bf16")
    parser.add_argument("--json")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("pytorch_peer: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device("cuda")
    generator = torch.Generator(device=device).manual_seed(1)

    n = 8192
    a = torch.rand(n, n, device=device, generator=generator)
    b = torch.rand(n, n, device=device, generator=generator)
    sgemm_ms, _, _ = timed(lambda: a @ b, 3, 10)
    big = torch.empty(256 << 20, dtype=torch.uint8, device=device)
    copy_ms, _, _ = timed(lambda: big.clone(), 3, 10)
    report = {
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "sgemm_gflops": 2 * n ** 3 / (sgemm_ms * 1e-3) * 1e-9,
        "copy_gb_per_s": 2 * big.numel() / (copy_ms * 1e-3) * 1e-9,
        "measurements": [],
    }
    del a, b, big
    print(f"{report['device']}: SGEMM {report['sgemm_gflops']:.0f} GFLOP/s, copy {report['copy_gb_per_s']:.0f} GB/s")
    print(f"{'precision':>9} {'N':>9} {'K':>6} {'D':>4} {'ms':>9} {'[min, max]':>20} {'GFLOP/s':>9} {'differ':>8}")
    precisions = args.precisions.split(",")
    for size in args.sizes.split(","):
        rows, words = (int(v) for v in size.lower().split("x"))
        x = torch.rand(rows, args.dimension, device=device, generator=generator)
        c = torch.rand(words, args.dimension, device=device, generator=generator)
        reference = nearest_float64(x, c) if precisions != ["fp32"] else None
        for precision in precisions:
            xs, cs, norms = operands(precision, x, c)
            median, low, high = timed(lambda: histogram(xs, cs, norms), args.warmup, args.repetitions)
            differ = int((nearest(xs, cs, norms) != reference).sum()) if reference is not None else -1
            gflops = 2 * rows * words * args.dimension / (median * 1e-3) * 1e-9
            report["measurements"].append({"precision": precision, "n": rows, "k": words, "d": args.dimension,
                                           "ms": median, "min_ms": low, "max_ms": high, "gflops": gflops,
                                           "differ_from_float64": differ})
            print(f"{precision:>9} {rows:>9} {words:>6} {args.dimension:>4} {median:>9.3f} "
                  f"{f'[{low:.3f}, {high:.3f}]':>20} {gflops:>9.1f} {differ:>8}")
        torch.backends.cuda.matmul.allow_tf32 = False
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=2)


if __name__ == "__main__":
    main()

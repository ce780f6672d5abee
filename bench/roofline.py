#!/usr/bin/env python3
"""Draws a roofline plot (PNG) of every kernel variant in `bovw-bench --json` output, and optionally
of the PyTorch peer (bench/pytorch_peer.py --json), for docs/.

What it draws, on log-log axes:

- x: arithmetic intensity, in flops per byte of DRAM traffic. Work is 2*N*K*D flops (one FMA per
  descriptor component per word). Traffic is the minimum any kernel must move:
  4*N*D bytes (the FP32 descriptors, read once) + 4*K*D bytes (the FP32 words) + 4*N bytes (one
  32-bit assignment written per descriptor). Every series uses this same algorithmic minimum, so a
  kernel that re-reads data (or PyTorch, which writes and re-reads an N x K score matrix) does not
  move right or left: it only sits lower.
- y: measured GFLOP/s (the "gflops" of each measurement: 2*N*K*D / median kernel time).
- the two ceilings measured by `bovw-bench` on the same device: a horizontal FP32 FMA peak
  ("ceilings.fp32_gflops") and a slanted memory roof ("ceilings.copy_gb_per_s" times intensity); on
  NVIDIA devices also the tensor cores' peaks ("ceilings.tf32_gflops", "ceilings.fp16_gflops"),
  dashed, for tiled-tf32 and tiled-fp16.
  With several bench files their measurements are merged and the ceilings come from the first.
- one marker and colour per contender; CPU contenders (serial, openmp, openmp-tiled) have no GPU
  roof and are left out unless --include-cpu. PyTorch's GEMM + argmin points are one more series.
- when the data mixes several D, points at the most common D have filled markers and the others
  hollow ones (the footnote says which D is which).
- the largest case (most flops) of each series is labelled with its N x K (and D, when those labelled
  cases differ in D).
Title: device name and date from the first bench file; subtitle: the intensity definition above.

Usage:
    bench/roofline.py BENCH.json [BENCH.json ...] [--pytorch P.json ...] [--include-cpu]
                      [--output docs/roofline.png]
(--pytorch takes one or more files, so put it after the bench files.)
Needs numpy and matplotlib (on Debian: apt-get install python3-matplotlib).
"""
import argparse
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

CPU_CONTENDERS = ("serial", "openmp", "openmp-tiled")
PYTORCH_SERIES = "PyTorch GEMM+argmin"
BYTES_DEFINITION = ("intensity = 2·N·K·D flops / (4·N·D + 4·K·D + 4·N) bytes: descriptors read once, "
                    "words read once, one 32-bit assignment written per descriptor")

# Fixed styles (colour, marker, marker area) for the contenders `bovw-bench` knows, so the colours stay the
# same from plot to plot. Smaller markers are drawn on top, so that series with nearly equal rates (local and
# constant, coalesced and float4) both stay visible: a small marker inside a bigger one.
KNOWN_STYLES = {
    "baseline": ("tab:gray", "v", 36),
    "coalesced": ("tab:blue", "o", 26),
    "float4": ("tab:cyan", "s", 44),
    "local": ("tab:green", "D", 46),
    "constant": ("tab:olive", "P", 30),
    "tiled": ("tab:red", "*", 95),
    "tiled-tf32": ("darkred", "^", 70),
    PYTORCH_SERIES: ("black", "X", 64),
    "PyTorch TF32 (inexact)": ("dimgray", "x", 52),
    "PyTorch FP16 (inexact)": ("silver", "d", 40),
    "serial": ("tab:brown", "h", 40),
    "openmp": ("tab:purple", "p", 52),
    "openmp-tiled": ("tab:pink", "8", 26),
}
SPARE_COLOURS = ("tab:orange", "darkgoldenrod", "teal", "navy", "maroon", "darkviolet")
SPARE_MARKERS = ("^", "<", ">", "d", "H", "o")

FIGURE_INCHES = (8.0, 6.4)  # 1200 x 960 px at the default 150 dpi
AXES_RECT = (0.11, 0.235, 0.855, 0.665)  # left, bottom, width, height in figure fractions
LABEL_FONT_SIZE = 7.5


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bench", nargs="+", help="JSON written by `bovw-bench --json` (several are merged)")
    parser.add_argument("--pytorch", nargs="+", default=[], metavar="P.json",
                        help="JSON written by bench/pytorch_peer.py --json")
    parser.add_argument("--include-cpu", action="store_true",
                        help="also plot the CPU contenders (%s)" % ", ".join(CPU_CONTENDERS))
    parser.add_argument("--output", default="docs/roofline.png", help="PNG to write (default: %(default)s)")
    parser.add_argument("--dpi", type=int, default=150, help="resolution (default: %(default)s)")
    return parser.parse_args(argv)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def work_flops(n, k, d):
    return 2.0 * n * k * d


def minimum_bytes(n, k, d):
    """Descriptors read once, words read once, one 32-bit assignment written per descriptor."""
    return 4.0 * n * d + 4.0 * k * d + 4.0 * n


def arithmetic_intensity(n, k, d):
    return work_flops(n, k, d) / minimum_bytes(n, k, d)


def make_point(n, k, d, gflops):
    return {"n": n, "k": k, "d": d, "intensity": arithmetic_intensity(n, k, d), "gflops": gflops}


def is_plottable(measurement):
    return "skipped" not in measurement and measurement.get("gflops", 0) > 0


def bench_series(bench_documents, include_cpu):
    """Contender name -> list of points, merged over all bench files, in order of first appearance."""
    series = {}
    for document in bench_documents:
        for m in document["measurements"]:
            if not is_plottable(m) or (m["contender"] in CPU_CONTENDERS and not include_cpu):
                continue
            series.setdefault(m["contender"], []).append(make_point(m["n"], m["k"], m["d"], m["gflops"]))
    return series


def pytorch_series(pytorch_documents):
    """Series name -> points: FP32 as PyTorch's series, the reduced precisions (pytorch_peer.py
    --precisions; files without the field are FP32) as series of their own, BF16 left out."""
    series = {}
    for document in pytorch_documents:
        for m in document["measurements"]:
            precision = m.get("precision", "fp32")
            if m.get("gflops", 0) <= 0 or precision == "bf16":
                continue
            name = PYTORCH_SERIES if precision == "fp32" else "PyTorch %s (inexact)" % precision.upper()
            series.setdefault(name, []).append(make_point(m["n"], m["k"], m["d"], m["gflops"]))
    return series


def warn_about_mixed_devices(bench_documents, pytorch_documents):
    names = {doc["device"]["name"] for doc in bench_documents} | {doc["device"] for doc in pytorch_documents}
    if len(names) > 1:
        print("roofline: warning: the files come from different devices: %s; the ceilings are the first "
              "bench file's" % ", ".join(sorted(names)), file=sys.stderr)


def series_style(name, index):
    if name in KNOWN_STYLES:
        return KNOWN_STYLES[name]
    return SPARE_COLOURS[index % len(SPARE_COLOURS)], SPARE_MARKERS[index % len(SPARE_MARKERS)], 40


def decade_below(value):
    return 10.0 ** math.floor(math.log10(value))


def decade_above(value):
    return 10.0 ** math.ceil(math.log10(value))


def axis_limits(all_points, peak_gflops, bandwidth_gbs):
    """Whole decades around the data and the ridge point, with room on the right for the labels."""
    intensities = [p["intensity"] for p in all_points]
    rates = [p["gflops"] for p in all_points]
    ridge = peak_gflops / bandwidth_gbs
    x_low = decade_below(min(min(intensities), ridge) / 1.5)
    x_high = decade_above(max(max(intensities), ridge) * 2.5)
    y_low = decade_below(min(rates) / 1.5)
    y_high = decade_above(max(max(rates), peak_gflops) * 1.3)
    return (x_low, x_high), (y_low, y_high)


def display_angle(ax, x0, y0, x1, y1):
    """Angle in degrees on screen of the segment between two data points (for text along a line)."""
    (px0, py0), (px1, py1) = ax.transData.transform([(x0, y0), (x1, y1)])
    return math.degrees(math.atan2(py1 - py0, px1 - px0))


def rate_text(gflops):
    return "%.1f TFLOP/s" % (gflops / 1000.0) if gflops >= 1000 else "%.3g GFLOP/s" % gflops


def draw_ceilings(ax, peak_gflops, bandwidth_gbs):
    """The attainable roof min(peak, bandwidth * intensity), with both ceilings and the ridge labelled."""
    (x_low, x_high), (y_low, _) = ax.get_xlim(), ax.get_ylim()
    ridge = peak_gflops / bandwidth_gbs
    x = np.logspace(math.log10(x_low), math.log10(x_high), 400)
    ax.plot(x, np.minimum(peak_gflops, bandwidth_gbs * x), color="black", linewidth=1.8, zorder=2)
    ax.annotate("FP32 FMA peak %s" % rate_text(peak_gflops), xy=(x_high, peak_gflops),
                xytext=(-6, 4), textcoords="offset points", fontsize=8.5, va="bottom", ha="right")
    slope_start = max(x_low, y_low / bandwidth_gbs)
    label_x = math.sqrt(slope_start * ridge)  # middle of the visible slope
    angle = display_angle(ax, label_x / 2.0, bandwidth_gbs * label_x / 2.0, label_x, bandwidth_gbs * label_x)
    ax.annotate("memory roof %.0f GB/s (device copy)" % bandwidth_gbs, xy=(label_x, bandwidth_gbs * label_x),
                xytext=(-3, 5), textcoords="offset points", fontsize=8.5, ha="center", va="bottom",
                rotation=angle, rotation_mode="anchor")
    ax.annotate("ridge %.1f flop/B" % ridge, xy=(ridge, peak_gflops), xytext=(5, -5), textcoords="offset points",
                fontsize=7.5, ha="left", va="top", color="dimgray")


def most_common_d(points):
    counts = {}
    for p in points:
        counts[p["d"]] = counts.get(p["d"], 0) + 1
    return max(counts, key=counts.get)


def draw_series(ax, name, points, index, filled_d):
    """Filled markers for points at D == filled_d, hollow ones for any other D; small markers on top."""
    colour, marker, size = series_style(name, index)
    zorder = 3.0 + 1.0 / size
    filled = [p for p in points if p["d"] == filled_d]
    hollow = [p for p in points if p["d"] != filled_d]
    if filled:
        ax.scatter([p["intensity"] for p in filled], [p["gflops"] for p in filled], label=name, color=colour,
                   marker=marker, s=size, alpha=0.85, edgecolors="white", linewidths=0.4, zorder=zorder)
    if hollow:
        ax.scatter([p["intensity"] for p in hollow], [p["gflops"] for p in hollow],
                   label=None if filled else name, facecolors="none", edgecolors=colour, marker=marker,
                   s=size, linewidths=1.2, zorder=zorder)
    return colour


def largest_case(points):
    return max(points, key=lambda p: work_flops(p["n"], p["k"], p["d"]))


def size_label(point, show_d):
    n = point["n"]
    n_text = "%dM" % (n >> 20) if n >= 1 << 20 and n % (1 << 20) == 0 else "{:,}".format(n)
    return "%s×%d" % (n_text, point["k"]) + (", D=%d" % point["d"] if show_d else "")


def boxes_overlap(a, b):
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def spread_labels(anchors, sizes, obstacles, x_offset, step):
    """Vertical pixel offset for each label (placed x_offset right of its anchor, centred on it) that is
    nearest to zero without overlapping an earlier label or an obstacle box (left, right, bottom, top)."""
    placed = []
    offsets = [0.0] * len(anchors)
    for i in sorted(range(len(anchors)), key=lambda i: anchors[i][1]):
        (x, y), (width, height) = anchors[i], sizes[i]
        for attempt in range(400):
            dy = step * ((attempt + 1) // 2) * (1 if attempt % 2 else -1)
            box = (x + x_offset, x + x_offset + width, y + dy - height / 2, y + dy + height / 2)
            if not any(boxes_overlap(box, other) for other in placed + obstacles):
                break
        placed.append(box)
        offsets[i] = dy
    return offsets


def marker_boxes(ax, points, half_size):
    """Pixel boxes around every plotted point, so that labels keep off them."""
    centres = ax.transData.transform([(p["intensity"], p["gflops"]) for p in points])
    return [(x - half_size, x + half_size, y - half_size, y + half_size) for x, y in centres]


def label_largest_cases(ax, labelled, all_points, dpi):
    """labelled: list of (point, text, colour). Labels sit right of their point, moved up or down just
    enough to keep clear of each other and of the markers; a thin leader joins a moved label to its point."""
    renderer = ax.figure.canvas.get_renderer()
    texts = [ax.text(0, 0, text, fontsize=LABEL_FONT_SIZE, fontweight="bold") for _, text, _ in labelled]
    sizes = [(box.width, box.height) for box in (t.get_window_extent(renderer) for t in texts)]
    for t in texts:
        t.remove()
    anchors = [tuple(ax.transData.transform((p["intensity"], p["gflops"]))) for p, _, _ in labelled]
    x_offset = 10 * dpi / 72.0
    obstacles = marker_boxes(ax, all_points, 4.5 * dpi / 72.0)
    offsets = spread_labels(anchors, sizes, obstacles, x_offset, 1.0)
    for (point, text, colour), dy in zip(labelled, offsets):
        leader = dict(arrowstyle="-", color=colour, linewidth=0.6, shrinkA=1, shrinkB=4)
        ax.annotate(text, xy=(point["intensity"], point["gflops"]), xytext=(x_offset, dy),
                    textcoords="offset pixels", fontsize=LABEL_FONT_SIZE, color=colour, va="center", ha="left",
                    fontweight="bold", zorder=5, arrowprops=leader if abs(dy) > 3 else None)


def style_axes(ax, x_limits, y_limits):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(*x_limits)
    ax.set_ylim(*y_limits)
    ax.set_xlabel("arithmetic intensity (flop / byte of minimum DRAM traffic)")
    ax.set_ylabel("GFLOP/s")
    ax.grid(True, which="major", linewidth=0.6, alpha=0.5)
    ax.grid(True, which="minor", linewidth=0.3, alpha=0.25)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "{:,g}".format(v)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "{:,g}".format(v)))


def write_titles(fig, device_name, date):
    fig.suptitle("Roofline: %s, %s" % (device_name, date), fontsize=12, y=0.975)
    fig.text(0.5, 0.93, BYTES_DEFINITION, ha="center", va="center", fontsize=7.5, color="dimgray")


def footnote(include_cpu, filled_d, other_ds):
    lines = ["y = 2·N·K·D / median kernel time (transfers excluded); ceilings measured by bovw-bench. "
             "Labels: the largest case of each series, N×K."]
    second = []
    if other_ds:
        second.append("Filled markers: D=%d; hollow: D=%s." % (filled_d, ", ".join(str(d) for d in other_ds)))
    else:
        second.append("D=%d throughout." % filled_d)
    if not include_cpu:
        second.append("CPU contenders (%s) left out: --include-cpu keeps them." % ", ".join(CPU_CONTENDERS))
    return "\n".join(lines + [" ".join(second)])


def write_legend_and_footnote(fig, ax, note):
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.075), ncol=min(5, len(labels)),
               fontsize=8.5, frameon=False, markerscale=1.2, handletextpad=0.3, columnspacing=1.4)
    fig.text(0.5, 0.015, note, ha="center", va="bottom", fontsize=7, color="dimgray", linespacing=1.5)


# The tensor cores' measured peaks (NVIDIA only), each a dashed roof: name, ceilings key, colour.
TENSOR_ROOFS = [("TF32", "tf32_gflops", "darkred"), ("FP16", "fp16_gflops", "darkmagenta")]


def plot_roofline(bench_documents, pytorch_documents, include_cpu, output, dpi):
    ceilings = bench_documents[0]["ceilings"]
    peak, bandwidth = ceilings["fp32_gflops"], ceilings["copy_gb_per_s"]
    series = bench_series(bench_documents, include_cpu)
    series.update(pytorch_series(pytorch_documents))
    all_points = [p for points in series.values() for p in points]
    if not all_points:
        sys.exit("roofline: no measurements to plot (all skipped, or only CPU ones without --include-cpu)")
    filled_d = most_common_d(all_points)
    other_ds = sorted({p["d"] for p in all_points} - {filled_d})
    largest = {name: largest_case(points) for name, points in series.items()}
    show_d = len({p["d"] for p in largest.values()}) > 1

    fig = plt.figure(figsize=FIGURE_INCHES, dpi=dpi)
    ax = fig.add_axes(AXES_RECT)
    tensor_roofs = [(name, ceilings.get(key, 0), colour) for name, key, colour in TENSOR_ROOFS]
    style_axes(ax, *axis_limits(all_points, max([peak] + [rate for _, rate, _ in tensor_roofs]), bandwidth))
    draw_ceilings(ax, peak, bandwidth)
    for name, rate, colour in tensor_roofs:  # tensor cores: roofs of their own, dashed
        if rate <= 0:
            continue
        ax.axhline(rate, color=colour, linestyle="--", linewidth=1.2, zorder=2)
        ax.annotate("%s mma.sync peak %s" % (name, rate_text(rate)), xy=(ax.get_xlim()[1], rate), xytext=(-6, 4),
                    textcoords="offset points", fontsize=8.5, va="bottom", ha="right", color=colour)
    labelled = []
    for index, (name, points) in enumerate(series.items()):
        colour = draw_series(ax, name, points, index, filled_d)
        labelled.append((largest[name], size_label(largest[name], show_d), colour))
    label_largest_cases(ax, labelled, all_points, dpi)
    write_titles(fig, bench_documents[0]["device"]["name"], bench_documents[0].get("date", ""))
    write_legend_and_footnote(fig, ax, footnote(include_cpu, filled_d, other_ds))
    fig.savefig(output, dpi=dpi)
    plt.close(fig)


def main(argv=None):
    args = parse_arguments(argv)
    bench_documents = [read_json(path) for path in args.bench]
    pytorch_documents = [read_json(path) for path in args.pytorch]
    warn_about_mixed_devices(bench_documents, pytorch_documents)
    plot_roofline(bench_documents, pytorch_documents, args.include_cpu, args.output, args.dpi)
    print("wrote %s" % args.output)


if __name__ == "__main__":
    main()

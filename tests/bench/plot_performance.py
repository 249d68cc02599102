#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draws the performance plots of docs/performance.md from benchmark output.

Usage: plot_performance.py BENCH_DSP.txt BENCH_STREAMS.txt OUT_DIR
The inputs are the "name value unit" lines printed by bench_dsp and
bench_streams. Writes OUT_DIR/performance-breakdown.png (ns per frame per
stage of bench_dsp's model, next to speexdsp's whole frame) and
OUT_DIR/performance-streams.png (throughput and CPU per audio second against
the number of streams). The model's figures are named by its label, which
bench_dsp's "# model: PATH (LABEL, id ..., N params)" line gives
(network_LABEL_ns_per_frame, stream_LABEL_ns_per_frame).
Needs Debian's python3-matplotlib.
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_figures(path):
    """Returns {name: value} from "name value unit" lines."""
    figures = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                try:
                    figures[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return figures


def read_model_label(path):
    """Returns the model's label from bench_dsp's "# model:" line: the text
    in its (last) parentheses before the first comma."""
    with open(path) as f:
        for line in f:
            if line.startswith("# model:"):
                inner = line[line.rindex("(") + 1:]
                return inner.split(",")[0].strip()
    sys.exit("%s: no \"# model:\" line (not bench_dsp output?)" % path)


def plot_breakdown(dsp, label, out):
    stages = ["analysis", "features", "network_" + label, "gains",
              "synthesis"]
    labels = ["analysis FFT", "features", "network (%s)" % label, "gains",
              "synthesis"]
    values = [dsp[s + "_ns_per_frame"] / 1000 for s in stages]
    total = dsp["stream_%s_ns_per_frame" % label] / 1000
    speex = dsp["speexdsp_realtime_factor"] * 1e6 / 100  # µs per 10 ms
    fig, ax = plt.subplots(figsize=(7, 3.2))
    left = 0.0
    for label, v in zip(labels, values):
        ax.barh(["rnndenoise"], [v], left=left, label="%s %.1f µs" % (label, v))
        left += v
    ax.barh(["rnndenoise"], [total - left], left=left, color="lightgrey",
            label="state in/out, framing %.1f µs" % (total - left))
    ax.barh(["speexdsp"], [speex], color="black", label="speexdsp %.1f µs" % speex)
    ax.set_xlabel("CPU µs per 10 ms frame, one channel")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Cost of one frame (lower is better)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot_streams(streams, out):
    counts = [1, 2, 4, 16, 64]
    layouts = [("rnndenoise_one_element", "rnndenoise, one element"),
               ("rnndenoise_separate", "rnndenoise, one element each"),
               ("webrtcdsp", "webrtcdsp"),
               ("identity", "identity (sources and sinks only)")]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
    for key, label in layouts:
        tp = [streams.get("%s_%d_streams_throughput" % (key, n)) for n in counts]
        cpu = [streams.get("%s_%d_streams_cpu" % (key, n)) for n in counts]
        if None in tp:
            continue
        a1.plot(counts, tp, marker="o", label=label)
        a2.plot(counts, [c * 1000 for c in cpu], marker="o", label=label)
    for a in (a1, a2):
        a.set_xscale("log", base=2)
        a.set_xticks(counts)
        a.set_xticklabels([str(n) for n in counts])
        a.set_xlabel("streams")
    a1.set_yscale("log")
    a1.set_ylabel("audio seconds per wall second")
    a2.set_ylabel("CPU ms per audio second")
    a1.legend(fontsize=7)
    fig.suptitle("Many streams on a 2-core machine")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    dsp = read_figures(sys.argv[1])
    label = read_model_label(sys.argv[1])
    streams = read_figures(sys.argv[2])
    plot_breakdown(dsp, label, sys.argv[3] + "/performance-breakdown.png")
    plot_streams(streams, sys.argv[3] + "/performance-streams.png")


if __name__ == "__main__":
    main()

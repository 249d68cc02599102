#!/usr/bin/python3
"""Run every method on the held-out test mixtures, score them, and write
the quality report and its plots.

    evaluate.py --build BUILD --model MODEL --work WORK --docs DOCS
                TESTDIR [TESTDIR ...]

Each TESTDIR is the test/ folder written by dsp/train/synth.py (snrS/
subfolders and a manifest.tsv). Processed audio and per-file figures go
under WORK; DOCS receives quality.md, quality-curves.png and
quality-spectrograms.png. tests/quality/run.sh calls this with the right
arguments; the environment may set RNNDENOISE_PROPS, WEBRTCDSP_PROPS and
SPEEX_SUPPRESS to try other settings.
"""

import argparse
import collections
import csv
import os
import shlex
import string
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import get_context

import numpy as np
from scipy.io import wavfile

import metrics

HERE = os.path.dirname(os.path.abspath(__file__))
RATE = metrics.RATE

METHODS = ["noisy", "speexdsp", "webrtcdsp", "rnndenoise"]
BASELINES = ["speexdsp", "webrtcdsp"]
ORACLE = "ideal-gains"
LABELS = {"noisy": "noisy (input)", "speexdsp": "speexdsp",
          "webrtcdsp": "webrtcdsp", "rnndenoise": "rnndenoise",
          ORACLE: "ideal band gains (oracle)"}
COLOURS = {"noisy": "0.55", "speexdsp": "tab:orange",
           "webrtcdsp": "tab:green", "rnndenoise": "tab:blue",
           ORACLE: "tab:purple"}

GROUPS = collections.OrderedDict([
    ("stationary", ["white", "pink", "brown", "hum", "fan"]),
    ("non-stationary", ["engine", "bursts", "clicks", "keyboard",
                        "amnoise"]),
    ("babble", ["babble"]),
])
LOW_SNRS = [-5, 0, 5, 10]  # the range of the ΔSI-SDR goal
STOI_BASELINE_SNRS = [-5, 0, 5]
NOISE_FREE_SNR = 0  # the clean tracks of these mixtures are run alone

DEFAULT_RNNDENOISE_PROPS = ""
DEFAULT_WEBRTCDSP_PROPS = ("echo-cancel=false gain-control=false "
                           "high-pass-filter=false "
                           "noise-suppression-level=very-high")


# ---- data -----------------------------------------------------------------

def load_mixtures(testdirs):
    """The mixtures of every test folder, from their manifest.tsv."""
    mixtures = []
    for d in testdirs:
        tag = os.path.basename(os.path.dirname(os.path.abspath(d)))
        with open(os.path.join(d, "manifest.tsv")) as f:
            for row in csv.DictReader(f, delimiter="\t"):
                base = os.path.join(d, row["name"])
                kind = row["noise"]
                group = next((g for g, kinds in GROUPS.items()
                              if kind in kinds), "other")
                mixtures.append({
                    "id": "%s/%s" % (tag, row["name"]),
                    "snr": int(round(float(row["snr"]))),
                    "kind": kind, "group": group,
                    "heldout": row["heldout_noise"] == "yes",
                    "voice": row["voices"],
                    "clean": base + "_clean.wav",
                    "noisy": base + "_noisy.wav"})
    return mixtures


def read_wav(path):
    rate, x = wavfile.read(path)
    if rate != RATE:
        raise ValueError("%s: %d Hz, expected %d" % (path, rate, RATE))
    if x.dtype == np.int16:
        x = x / 32768.0
    if x.ndim > 1:
        x = x[:, 0]
    return x.astype(np.float64)


# ---- methods --------------------------------------------------------------

class Runner:
    """Runs one method on one WAV file (mono 48 kHz float32 in and out)."""

    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        self.env["GST_PLUGIN_PATH"] = os.path.join(args.build, "plugin")
        self.env["GST_REGISTRY_1_0"] = os.path.join(args.work,
                                                    "registry.bin")
        self.rnn_props = os.environ.get("RNNDENOISE_PROPS",
                                        DEFAULT_RNNDENOISE_PROPS)
        self.webrtc_props = os.environ.get("WEBRTCDSP_PROPS",
                                           DEFAULT_WEBRTCDSP_PROPS)
        self.speex_suppress = os.environ.get("SPEEX_SUPPRESS", "")

    def element(self, method):
        if method == "rnndenoise":
            return ["rnndenoise", "model=" + self.args.model] + shlex.split(
                self.rnn_props)
        return ["webrtcdsp"] + shlex.split(self.webrtc_props)

    def describe(self, method):
        """The command or element of a method, for the report."""
        if method == "speexdsp":
            return "speex_denoise%s IN.raw OUT.raw" % (
                " --suppress " + self.speex_suppress
                if self.speex_suppress else "")
        el = self.element(method)
        if method == "rnndenoise":
            el = ["rnndenoise", "model=MODEL"] + el[2:]
        return " ".join(el)

    def check(self):
        """Loads each element once (fills the registry) and fails early."""
        for name in ("rnndenoise", "webrtcdsp", "wavparse", "wavenc"):
            r = subprocess.run(["gst-inspect-1.0", name], env=self.env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode != 0:
                sys.exit("evaluate: GStreamer element %s not found" % name)

    def gst(self, method, inp, out):
        cmd = (["gst-launch-1.0", "-q", "filesrc", "location=" + inp, "!",
                "wavparse", "!", "audioconvert", "!", "audioresample", "!"]
               + self.element(method)
               + ["!", "audioconvert", "!", "audio/x-raw,format=F32LE",
                  "!", "wavenc", "!", "filesink", "location=" + out])
        r = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0 or not os.path.exists(out):
            raise RuntimeError("%s failed on %s:\n%s" % (method, inp,
                                                         r.stdout))

    def speex(self, inp, out):
        x = read_wav(inp)
        pcm = np.clip(np.round(x * 32768), -32768, 32767).astype("<i2")
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, "in.raw"), os.path.join(tmp, "out.raw")
            pcm.tofile(a)
            cmd = [self.args.speex]
            if self.speex_suppress:
                cmd += ["--suppress", self.speex_suppress]
            subprocess.run(cmd + [a, b], check=True)
            y = np.fromfile(b, dtype="<i2").astype(np.float32) / 32768.0
        wavfile.write(out, RATE, y)

    def run(self, job):
        method, inp, out = job
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if method == "speexdsp":
            self.speex(inp, out)
        else:
            self.gst(method, inp, out)
        return out


def output_path(work, method, mixture, noise_free=False):
    return os.path.join(work, "out", method, mixture["id"]
                        + ("_clean" if noise_free else "") + ".wav")


def run_methods(args, runner, mixtures, noise_free):
    jobs = []
    for m in mixtures:
        for method in METHODS[1:]:
            jobs.append((method, m["noisy"], output_path(args.work, method,
                                                         m)))
    for m in noise_free:
        for method in METHODS[1:]:
            jobs.append((method, m["clean"], output_path(args.work, method,
                                                         m, True)))
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        list(ex.map(runner.run, jobs))
    return len(jobs)


# ---- the ideal band gains (an upper bound, not a method) -------------------

def vorbis_window(n):
    t = np.sin(np.pi * (np.arange(n) + 0.5) / n) ** 2
    return np.sin(0.5 * np.pi * t)


def band_weights(edges, n_bins):
    """(bands, bins) triangular weights on the band centres; each bin's
    weights sum to 1, bins beyond the end centres belong to the end
    bands."""
    centres = [(edges[b] + edges[b + 1]) / 2.0 for b in range(len(edges) - 1)]
    w = np.zeros((len(centres), n_bins))
    k = np.arange(n_bins)
    for b, c in enumerate(centres):
        if b > 0:
            p = centres[b - 1]
            sel = (k > p) & (k <= c)
            w[b, sel] = (k[sel] - p) / (c - p)
        else:
            w[b, k <= c] = 1
        if b < len(centres) - 1:
            q = centres[b + 1]
            sel = (k > c) & (k < q)
            w[b, sel] = (q - k[sel]) / (q - c)
        else:
            w[b, k > c] = 1
    return w


def ideal_band_gains(clean, noisy, edges, hop=480):
    """The noisy signal with the ideal band gains sqrt(E_clean / E_noisy)
    (at most 1) applied in the element's STFT (Vorbis window of two hops,
    50 % overlap) and band layout: the best that gains on these bands can
    do, given the clean speech."""
    win_len = 2 * hop
    win = vorbis_window(win_len)
    n = noisy.size
    frames = n // hop + 2
    pad = np.zeros(frames * hop + win_len)
    cpad, npad = pad.copy(), pad.copy()
    cpad[hop:hop + n], npad[hop:hop + n] = clean, noisy
    idx = np.arange(frames)[:, None] * hop + np.arange(win_len)[None, :]
    C = np.fft.rfft(cpad[idx] * win, axis=1)
    N = np.fft.rfft(npad[idx] * win, axis=1)
    w = band_weights(edges, C.shape[1])
    ec = (np.abs(C) ** 2) @ w.T
    en = (np.abs(N) ** 2) @ w.T
    g = np.minimum(np.sqrt(ec / (en + 1e-20)), 1.0)
    out = np.fft.irfft(N * (g @ w), n=win_len, axis=1) * win
    y = np.zeros(pad.size)
    for i in range(frames):
        y[i * hop:i * hop + win_len] += out[i]
    return y[hop:hop + n]


# ---- scoring --------------------------------------------------------------

def _lags(job):
    """Per-file best lag of each method's output against the clean
    speech."""
    m, work = job
    clean = read_wav(m["clean"])
    return {method: metrics.best_lag(clean, read_wav(output_path(
        work, method, m))) for method in METHODS[1:]}


def _score(job):
    """Every figure of one mixture, for each method and the oracle."""
    m, work, lags, edges = job
    clean, noisy = read_wav(m["clean"]), read_wav(m["noisy"])
    n = clean.size
    speech, free = metrics.activity(clean)
    base = metrics.si_sdr(clean, noisy)
    rows = []
    outputs = {"noisy": noisy, ORACLE: ideal_band_gains(clean, noisy, edges)}
    for method in METHODS[1:]:
        outputs[method] = metrics.align(
            read_wav(output_path(work, method, m)), lags[method], n)
    for method in METHODS + [ORACLE]:
        y = outputs[method]
        v = metrics.si_sdr(clean, y)
        rows.append(dict(m, method=method, si_sdr=v, d_si_sdr=v - base,
                         stoi=metrics.stoi(clean, y),
                         nr=metrics.noise_reduction(noisy, y, free),
                         sp_si_sdr=metrics.speech_si_sdr(clean, y, speech),
                         lsd=metrics.log_spectral_distance(clean, y, speech)))
    return rows


def _score_noise_free(job):
    m, work, lags = job
    clean = read_wav(m["clean"])
    speech, _ = metrics.activity(clean)
    rows = []
    for method in METHODS[1:]:
        y = metrics.align(read_wav(output_path(work, method, m, True)),
                          lags[method], clean.size)
        level = 10 * np.log10((np.sum(metrics._frames(y, speech) ** 2)
                               + metrics.EPS)
                              / (np.sum(metrics._frames(clean, speech) ** 2)
                                 + metrics.EPS))
        rows.append(dict(m, method=method, si_sdr=metrics.si_sdr(clean, y),
                         level=level, stoi=metrics.stoi(clean, y),
                         lsd=metrics.log_spectral_distance(clean, y,
                                                           speech)))
    return rows


LAG_TOLERANCE = 2  # samples; reported, not used for scoring


def constant_lags(per_file):
    """Each method's constant delay: the most common per-file lag; also
    the share of files whose own lag is within LAG_TOLERANCE of it."""
    lags, agree = {}, {}
    for method in METHODS[1:]:
        values = [d[method] for d in per_file]
        lag = collections.Counter(values).most_common(1)[0][0]
        lags[method] = lag
        agree[method] = np.mean([abs(v - lag) <= LAG_TOLERANCE
                                 for v in values])
    return lags, agree


# ---- aggregation ----------------------------------------------------------

def mean(rows, key, **where):
    vals = [r[key] for r in rows
            if all(r[k] in v if isinstance(v, (list, tuple, set))
                   else r[k] == v for k, v in where.items())]
    vals = [v for v in vals if v == v]
    return float(np.mean(vals)) if vals else float("nan")


def fmt(v, digits=1, plus=False):
    if v != v:
        return "–"
    if v > 99:
        return "> 99"
    v = round(v, digits) + 0.0  # no "-0.0"
    s = ("%+." if plus else "%.") + str(digits) + "f"
    return (s % v).replace("-", "−")


def md_table(header, rows, numeric=True):
    """A Markdown table; numeric columns (all but the first) are
    right-aligned."""
    align = "---:" if numeric else "---"
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] + [align] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def snr_label(s):
    return ("%+d dB" % s).replace("-", "−") if s else "0 dB"


def per_snr_table(rows, snrs, key, methods, digits=1, plus=False):
    """Rows: SNRs and the mean over LOW_SNRS; columns: methods."""
    body = []
    for s in snrs:
        body.append([snr_label(s)] + [fmt(mean(rows, key, snr=s,
                                               method=mt), digits, plus)
                                      for mt in methods])
    body.append(["**−5…10 dB**"] + [
        "**%s**" % fmt(mean(rows, key, snr=LOW_SNRS, method=mt), digits,
                       plus) for mt in methods])
    return md_table(["SNR"] + [LABELS[mt] for mt in methods], body)


def group_table(rows, snrs, where):
    """ΔSI-SDR and STOI per SNR for the mixtures matching `where`."""
    proc = METHODS[1:] + [ORACLE]
    header = (["SNR", "n"] + ["ΔSI-SDR " + LABELS[m].split(" ")[0]
                              for m in proc]
              + ["STOI " + LABELS[m].split(" ")[0] for m in METHODS])
    body = []
    for s in snrs + [LOW_SNRS]:
        label = "**−5…10 dB**" if isinstance(s, list) else snr_label(s)
        n = len([r for r in rows if r["method"] == "noisy"
                 and (r["snr"] in s if isinstance(s, list) else r["snr"] == s)
                 and all(r[k] in v for k, v in where.items())])
        sel = dict(where, snr=s)
        body.append([label, str(n)]
                    + [fmt(mean(rows, "d_si_sdr", method=m, **sel), 1, True)
                       for m in proc]
                    + [fmt(mean(rows, "stoi", method=m, **sel), 3)
                       for m in METHODS])
    return md_table(header, body)


def kind_table(rows, kinds, heldout):
    proc = METHODS[1:]
    header = (["noise kind"] + ["ΔSI-SDR " + m for m in proc]
              + ["STOI " + m.split(" ")[0] for m in METHODS]
              + ["NR " + m for m in proc])
    body = []
    for k in kinds:
        sel = dict(kind=k, snr=LOW_SNRS)
        name = k + (" (held out)" if k in heldout else "")
        body.append([name]
                    + [fmt(mean(rows, "d_si_sdr", method=m, **sel), 1, True)
                       for m in proc]
                    + [fmt(mean(rows, "stoi", method=m, **sel), 3)
                       for m in METHODS]
                    + [fmt(mean(rows, "nr", method=m, **sel)) for m in proc])
    return md_table(header, body)


# ---- goals ----------------------------------------------------------------

def goals(rows, free_rows, snrs):
    """(goal, target, reached, met) for each goal of the design."""
    out = []
    d = {m: mean(rows, "d_si_sdr", method=m, snr=LOW_SNRS) for m in METHODS}
    out.append(("mean ΔSI-SDR, −5…10 dB", "≥ 8 dB",
                "%s dB" % fmt(d["rnndenoise"], 1, True),
                d["rnndenoise"] >= 8))
    out.append(("mean ΔSI-SDR, −5…10 dB, over speexdsp's",
                "≥ 3 dB (speexdsp: %s dB)" % fmt(d["speexdsp"], 1, True),
                "%s dB" % fmt(d["rnndenoise"] - d["speexdsp"], 1, True),
                d["rnndenoise"] - d["speexdsp"] >= 3))
    worst, at = min((mean(rows, "stoi", method="rnndenoise", snr=s)
                     - mean(rows, "stoi", method="noisy", snr=s), s)
                    for s in snrs)
    out.append(("STOI above the noisy input at every SNR",
                "> 0 at each SNR", "smallest gain %s (at %s)" % (
                    fmt(worst, 4, True), snr_label(at)), worst > 0))
    worst_b, at = min((mean(rows, "stoi", method="rnndenoise", snr=s)
                       - max(mean(rows, "stoi", method=b, snr=s)
                             for b in BASELINES), s)
                      for s in STOI_BASELINE_SNRS)
    out.append(("STOI above both baselines at −5, 0, 5 dB",
                "> 0 at each SNR", "smallest margin %s (at %s)" % (
                    fmt(worst_b, 4, True), snr_label(at)), worst_b > 0))
    nr = mean(rows, "nr", method="rnndenoise")
    out.append(("noise reduction in speech-free parts, all SNRs", "≥ 20 dB",
                "%s dB" % fmt(nr), nr >= 20))
    d20 = mean(rows, "d_si_sdr", method="rnndenoise", snr=max(snrs))
    out.append(("ΔSI-SDR at %d dB" % max(snrs), "≥ 0 dB",
                "%s dB" % fmt(d20, 2, True), d20 >= 0))
    nf = mean(free_rows, "si_sdr", method="rnndenoise")
    out.append(("SI-SDR on noise-free speech", "≥ 25 dB", "%s dB" % fmt(nf),
                nf >= 25))
    return out


def _bullet(text):
    return textwrap.fill(text, 76, initial_indent="- ",
                         subsequent_indent="  ")


def discussion(rows, free_rows, snrs, heldout, goal_rows):
    """Plain statements about what falls short and what limits it, from
    the figures of this run."""
    lines = []
    short = [g for g in goal_rows if not g[3]]
    if not short:
        lines.append("Every goal is met on this test set.")
    else:
        met = [g[0] for g in goal_rows if g[3]]
        lines.append("%d of %d goals %s met%s; the table gives how far "
                     "the others fall short." % (
                         len(met), len(goal_rows),
                         "is" if len(met) == 1 else "are",
                         " (%s)" % "; ".join(met) if met else ""))
    r = "rnndenoise"
    d_r = mean(rows, "d_si_sdr", method=r, snr=LOW_SNRS)
    d_o = mean(rows, "d_si_sdr", method=ORACLE, snr=LOW_SNRS)
    best_b = max(BASELINES, key=lambda b: mean(rows, "d_si_sdr", method=b,
                                                snr=LOW_SNRS))
    d_b = mean(rows, "d_si_sdr", method=best_b, snr=LOW_SNRS)
    lines.append(
        "Against the baselines: mean ΔSI-SDR over −5…10 dB is %s dB for "
        "rnndenoise and %s dB for the better baseline (%s)."
        % (fmt(d_r, 1, True), fmt(d_b, 1, True), best_b))
    lines.append(
        "Ceiling of the design: the ideal band gains (from the clean "
        "speech, in the element's STFT and %d bands) reach %s dB mean "
        "ΔSI-SDR over −5…10 dB. Gains on bands cannot remove the noise "
        "between the harmonics inside one band (there is no pitch "
        "filter), which caps ΔSI-SDR in voiced frames however good the "
        "network is; rnndenoise reaches %.0f %% of that ceiling."
        % (len(EDGES) - 1, fmt(d_o, 1, True),
           100 * d_r / d_o if d_o > 0 else float("nan")))
    by_group = {g: mean(rows, "d_si_sdr", method=r, group=g, snr=LOW_SNRS)
                for g in GROUPS}
    weakest = min(by_group, key=lambda g: by_group[g])
    why = {"babble": ": babble is speech, and band gains from one "
           "channel can tell the target voice from the crowd only by "
           "level and continuity",
           "non-stationary": ": the noise changes faster than the "
           "network's estimate of it"}.get(weakest, "")
    lines.append(
        "By noise group (rnndenoise, ΔSI-SDR over −5…10 dB): %s; the "
        "weakest is %s%s." % (", ".join("%s %s dB" % (g, fmt(v, 1, True))
                                        for g, v in by_group.items()),
                              weakest, why))
    h = mean(rows, "d_si_sdr", method=r, kind=heldout, snr=LOW_SNRS)
    seen = sorted({x["kind"] for x in rows} - set(heldout))
    s = mean(rows, "d_si_sdr", method=r, kind=seen, snr=LOW_SNRS)
    if h < s - 0.5:
        tail = ("%s dB less: this much of what it learnt does not carry "
                "over to noise it has not heard" % fmt(s - h, 1))
    else:
        tail = "no loss on the unseen kinds"
    lines.append(
        "Held-out noise kinds (%s): %s dB against %s dB on the kinds seen "
        "in training, %s." % (", ".join(heldout), fmt(h, 1, True),
                              fmt(s, 1, True), tail))
    nr_r = mean(rows, "nr", method=r)
    if nr_r < 20:
        lines.append(
            "Speech-free parts: %s dB of noise reduction, short of 20 dB: "
            "the network's gains in noise-only frames stay around %s "
            "rather than near 0. The attenuation-limit property can only "
            "raise this floor, not lower it; a VAD gate "
            "(vad-threshold) would silence those frames." % (
                fmt(nr_r), "%.2f" % 10 ** (-nr_r / 20)))
    nf = mean(free_rows, "si_sdr", method=r)
    lvl = mean(free_rows, "level", method=r)
    text = ("On noise-free speech rnndenoise scores %s dB SI-SDR and "
            "changes the level of the speech frames by %s dB" % (
                fmt(nf), fmt(lvl, 1, True)))
    if nf < 25:
        text += (": it takes part of the speech for noise (gains below 1 "
                 "on speech bands), which also bounds its ΔSI-SDR at high "
                 "SNR")
    lines.append(text + ".")
    d20 = mean(rows, "d_si_sdr", method=r, snr=max(snrs))
    if d20 < 0:
        lines.append(
            "At %d dB the output is worse than the input (ΔSI-SDR %s dB): "
            "the speech distortion outweighs the little noise there is to "
            "remove." % (max(snrs), fmt(d20, 1, True)))
    return "\n".join(_bullet(x) for x in lines)


# ---- plots ----------------------------------------------------------------

def plot_curves(rows, snrs, heldout, path):
    """ΔSI-SDR, STOI and noise reduction per SNR over every mixture (top),
    and ΔSI-SDR of the hard groups (bottom)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(13, 7.6))
    proc = METHODS[1:] + [ORACLE]
    panels = [
        ("d_si_sdr", "ΔSI-SDR (dB), all noise kinds", proc, {}, 8),
        ("stoi", "STOI, all noise kinds", METHODS + [ORACLE], {}, None),
        ("nr", "noise reduction in speech-free parts (dB)", METHODS[1:], {},
         20),
        ("d_si_sdr", "ΔSI-SDR (dB), babble", proc, {"group": "babble"}, 8),
        ("d_si_sdr", "ΔSI-SDR (dB), non-stationary", proc,
         {"group": "non-stationary"}, 8),
        ("d_si_sdr", "ΔSI-SDR (dB), held-out kinds (%s)" % ", ".join(
            heldout), proc, {"kind": heldout}, 8),
    ]
    for ax, (key, title, methods, where, goal) in zip(axes.flat, panels):
        for m in methods:
            # The input is drawn wide, so a method on top of it shows.
            ax.plot(snrs, [mean(rows, key, method=m, snr=s, **where)
                           for s in snrs],
                    marker="o", color=COLOURS[m], label=LABELS[m],
                    linestyle="--" if m == ORACLE else "-",
                    linewidth=5 if m == "noisy" else 1.5,
                    alpha=0.6 if m == "noisy" else 1.0)
        if goal is not None:
            ax.axhline(goal, color="k", linewidth=0.8, linestyle=":")
        ax.set_xlabel("input SNR (dB)")
        ax.set_title(title, fontsize=10)
        ax.set_xticks(snrs)
        ax.grid(alpha=0.3)
    axes[0, 1].legend(fontsize=8, loc="lower right")
    fig.suptitle("Held-out test mixtures (dotted: goals)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_spectrograms(example, work, lags, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.signal import spectrogram

    clean = read_wav(example["clean"])
    signals = [("clean speech", clean),
               ("noisy input (%s, %s)" % (example["kind"],
                                          snr_label(example["snr"])),
                read_wav(example["noisy"]))]
    for m in METHODS[1:]:
        signals.append((LABELS[m], metrics.align(
            read_wav(output_path(work, m, example)), lags[m], clean.size)))
    fig, axes = plt.subplots(len(signals), 1, figsize=(11, 2.1 * len(
        signals)), sharex=True)
    ref = None
    for ax, (title, x) in zip(axes, signals):
        f, t, s = spectrogram(x, RATE, window="hann", nperseg=1024,
                              noverlap=768)
        db = 10 * np.log10(s + 1e-14)
        if ref is None:
            ref = db.max()
        ax.pcolormesh(t, f / 1000, db, vmin=ref - 80, vmax=ref,
                      shading="auto", cmap="magma")
        ax.set_ylim(0, 16)
        ax.set_ylabel("kHz")
        ax.set_title(title, fontsize=9, loc="left")
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# ---- main -----------------------------------------------------------------

EDGES = []
FRAME_HOP = 480


def data_note(seconds):
    if seconds < 30:
        return "with the test mixtures already made (they are kept)"
    return "of which %.0f min went to making the test mixtures" % (
        seconds / 60.0)


def model_info(tool, model):
    out = subprocess.run([tool, "info", model], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    info = {}
    for line in out.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            info[k.strip()] = v.strip()
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("testdirs", nargs="+")
    ap.add_argument("--build", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--model-name", help="how the report names the model")
    ap.add_argument("--speex", required=True, help="the speex_denoise tool")
    ap.add_argument("--work", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--example", default="keyboard:5",
                    help="KIND:SNR of the spectrogram example")
    args = ap.parse_args()
    start = float(os.environ.get("QUALITY_START", time.time()))
    os.makedirs(args.work, exist_ok=True)

    info = model_info(os.path.join(args.build, "dsp", "rnndenoise-model"),
                      args.model)
    EDGES[:] = [int(v) for v in info["band edges"].split()]
    hop = int(info["hop"].split()[0])
    if int(info["sample rate"].split()[0]) != RATE or hop != FRAME_HOP:
        sys.exit("evaluate: the model must be 48 kHz with 10 ms hops")

    mixtures = load_mixtures(args.testdirs)
    snrs = sorted({m["snr"] for m in mixtures})
    heldout = sorted({m["kind"] for m in mixtures if m["heldout"]})
    kinds = [k for g in GROUPS.values() for k in g
             if any(m["kind"] == k for m in mixtures)]
    kinds += sorted({m["kind"] for m in mixtures} - set(kinds))
    noise_free = [m for m in mixtures if m["snr"] == NOISE_FREE_SNR]
    print("evaluate: %d mixtures (%d SNRs, %d noise kinds), %d noise-free "
          "tracks; model %s" % (len(mixtures), len(snrs), len(kinds),
                                len(noise_free), info["model id"]),
          flush=True)

    runner = Runner(args)
    runner.check()
    t0 = time.time()
    n_runs = run_methods(args, runner, mixtures, noise_free)
    t_run = time.time() - t0
    print("evaluate: %d method runs in %.0f s" % (n_runs, t_run), flush=True)

    ctx = get_context("fork")
    with ctx.Pool(args.jobs) as pool:
        per_file = pool.map(_lags, [(m, args.work) for m in mixtures])
        lags, agree = constant_lags(per_file)
        print("evaluate: constant delays %s" % ", ".join(
            "%s %d samples (%.0f %% of files within %d)"
            % (m, lags[m], 100 * agree[m], LAG_TOLERANCE)
            for m in lags), flush=True)
        rows = [r for rs in pool.map(_score, [(m, args.work, lags, EDGES)
                                             for m in mixtures]) for r in rs]
        free_rows = [r for rs in pool.map(_score_noise_free, [
            (m, args.work, lags) for m in noise_free]) for r in rs]
    print("evaluate: scored in %.0f s" % (time.time() - t0 - t_run),
          flush=True)

    with open(os.path.join(args.work, "scores.tsv"), "w") as f:
        keys = ["id", "snr", "kind", "group", "heldout", "method", "si_sdr",
                "d_si_sdr", "stoi", "nr", "sp_si_sdr", "lsd"]
        f.write("\t".join(keys) + "\n")
        for r in rows:
            f.write("\t".join(str(r[k]) for k in keys) + "\n")

    kind, snr = args.example.split(":")
    example = next((m for m in mixtures if m["kind"] == kind
                    and m["snr"] == int(snr)), mixtures[0])
    plot_curves(rows, snrs, heldout, os.path.join(args.docs,
                                                  "quality-curves.png"))
    plot_spectrograms(example, args.work, lags, os.path.join(
        args.docs, "quality-spectrograms.png"))

    goal_rows = goals(rows, free_rows, snrs)
    proc = METHODS[1:] + [ORACLE]
    free_table = md_table(
        ["method", "SI-SDR (dB)", "level change (dB)", "STOI", "LSD (dB)"],
        [[LABELS[m], fmt(mean(free_rows, "si_sdr", method=m)),
          fmt(mean(free_rows, "level", method=m), 1, True),
          fmt(mean(free_rows, "stoi", method=m), 3),
          fmt(mean(free_rows, "lsd", method=m), 2)] for m in METHODS[1:]])
    seconds = np.mean([read_wav(m["clean"]).size for m in mixtures[:3]]) / RATE
    counts = collections.Counter((m["snr"], m["kind"]) for m in mixtures)
    values = {
        "model_name": args.model_name or os.path.basename(args.model),
        "model_id": info["model id"],
        "model_params": info.get("parameters", "?"),
        "model_layers": info.get("layers", "?"),
        "n_bands": str(len(EDGES) - 1),
        "n_mixtures": str(len(mixtures)),
        "n_sets": str(len(args.testdirs)),
        "per_cell": str(min(counts.values())),
        "seconds": "%.0f" % seconds,
        "minutes": "%.0f" % (len(mixtures) * seconds / 60),
        "snrs": ", ".join("%d" % s for s in snrs).replace("-", "−"),
        "kinds": ", ".join(kinds),
        "heldout_kinds": ", ".join(heldout),
        "voices": ", ".join(sorted({m["voice"] for m in mixtures})),
        "groups": "; ".join("%s: %s" % (g, ", ".join(k)) for g, k in
                            GROUPS.items()),
        "n_noise_free": str(len(noise_free)),
        "noise_free_snr": str(NOISE_FREE_SNR),
        "speex_cmd": runner.describe("speexdsp"),
        "webrtc_cmd": runner.describe("webrtcdsp"),
        "rnn_cmd": runner.describe("rnndenoise"),
        "lags": ", ".join("%s %d samples (%.1f ms; %.0f %%)"
                          % (m, lags[m], 1000.0 * lags[m] / RATE,
                             100 * agree[m]) for m in METHODS[1:]),
        "lag_tolerance": str(LAG_TOLERANCE),
        "cores": str(os.cpu_count()),
        "load": "%.1f" % os.getloadavg()[1],
        "seeds": ", ".join(os.path.basename(os.path.dirname(
            os.path.abspath(d))).replace("seed", "")
            for d in args.testdirs),
        "goals_table": md_table(
            ["goal", "target", "rnndenoise", "met"],
            [[g[0], g[1], g[2], "yes" if g[3] else "**no**"]
             for g in goal_rows], numeric=False),
        "dsisdr_table": per_snr_table(rows, snrs, "d_si_sdr", proc, 1, True),
        "sisdr_table": per_snr_table(rows, snrs, "si_sdr", METHODS + [ORACLE],
                                     1),
        "stoi_table": per_snr_table(rows, snrs, "stoi", METHODS + [ORACLE],
                                    3),
        "nr_table": per_snr_table(rows, snrs, "nr", proc, 1),
        "spsisdr_table": per_snr_table(rows, snrs, "sp_si_sdr",
                                       METHODS + [ORACLE], 1),
        "lsd_table": per_snr_table(rows, snrs, "lsd", METHODS + [ORACLE], 2),
        "group_tables": "\n\n".join(
            "**%s** (%s)\n\n%s" % (g, ", ".join(k), group_table(
                rows, snrs, {"group": [g]})) for g, k in GROUPS.items()),
        "heldout_table": group_table(rows, snrs, {"kind": heldout}),
        "seen_table": group_table(rows, snrs, {"kind": sorted(
            set(kinds) - set(heldout))}),
        "kind_table": kind_table(rows, kinds, heldout),
        "free_table": free_table,
        "example": "%s at %s" % (example["kind"], snr_label(example["snr"])),
        "discussion": discussion(rows, free_rows, snrs, heldout, goal_rows),
        "runtime": "%.0f" % ((time.time() - start) / 60.0),
        "data_note": data_note(float(os.environ.get(
            "QUALITY_DATA_SECONDS", "0"))),
    }
    with open(os.path.join(HERE, "quality.md.in")) as f:
        text = string.Template(f.read()).substitute(values)
    with open(os.path.join(args.docs, "quality.md"), "w") as f:
        f.write(text)
    print("evaluate: wrote %s in %.0f s" % (os.path.join(
        args.docs, "quality.md"), time.time() - start), flush=True)
    for g in goal_rows:
        print("  %-52s %-28s %s" % (g[0], g[2], "met" if g[3] else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

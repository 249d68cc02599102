#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where the element loses speech, by frequency, against the band ceiling.

    speech_lost_split.py [--model FILE] [--edges "0 1 2 ..."] [--build DIR]
                         [--split "0 500 1000 2000 4000 24000"]
                         [--max-snr 10] [--by-kind] [--rate 16000]
                         [--depths "1 3 6 10 20"] [--jobs N] TESTDIR ...
    speech_lost_split.py --self-check [--build DIR] [--model FILE]

Each TESTDIR is a test/ or test-real/ folder written by dsp/train/synth.py.
Every mixture up to --max-snr dB is run through the element (as the
quality report runs it: the model file, RNNDENOISE_PROPS from the
environment) and masked with the ideal band gains of --edges (as
`rnndenoise-model info` prints them; evaluate.ideal_band_gains, the report's
oracle; by default the model's own edges). The speech energy lost of both (metrics.speech_energy_lost) is
split into the frequency ranges of --split (metrics.speech_energy_lost_parts)
and averaged over the mixtures: for each range its share of the counted
speech energy, its part of the element's and of the ceiling's dB lost, the
excess of the element over the ceiling and the element's mean loss over
the range's bins (part / share). The parts add up to the totals.
With --rate 16000 the model is a 16 kHz one (by default the 16 kHz model
built into the plugin) and each mixture is run at 16 kHz as
docs/quality-16k.md runs it: its clean speech and its mix decimated apart
(so the mix is exactly speech plus noise at 16 kHz), the element held at
16 kHz by a caps filter, the ceiling's ideal band gains taken in the
model's 16 kHz STFT, and the clean, noisy, denoised and ceiling signals
scored upsampled to 48 kHz, the metrics' rate (nothing above 8 kHz is
counted then). With --by-kind a second table gives the same split for each noise kind
alone (its element and ceiling totals, and the element's excess over the
ceiling in each range): where a kind loses more than the others, and in
which range. With --depths a last table splits the same totals by how
deep each counted bin was cut (metrics.speech_energy_lost_depths): the
bins taken down by less than the first edge, between consecutive edges,
and by the last edge or more; whether the speech is lost to many bins
taken down a little or to a few taken away.

It says where a network's speech loss beyond what band gains must lose
sits: a loss or a weight aimed at that range is the lever it points to.

--self-check writes two mixtures of a synthetic voice in white noise, runs
the element on them and checks that the parts add up to the totals, the
shares to 1, that the ceiling's total is mask_ceiling.py's first row and
that the element and the ceiling both lose some speech, and under 10 dB,
and that the per-kind means, weighted by their mixtures, give the overall
ones. (Which of the two loses more is the model's to say, not a rule: the
band ceiling is the ideal of band gains, and a model whose bin-gain head
corrects the bins between band centres, with the speech protection on
top, can keep more of a voice than the ideal band gains do; the shipped
48 kHz model does so on these mixtures.)
"""

import argparse
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from types import SimpleNamespace

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

import evaluate
import mask_ceiling
import metrics

SRC = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEFAULT_SPLIT = "0 500 1000 2000 4000 24000"
DEFAULT_DEPTHS = "1 3 6 10 20"
# The rates a model may run at here, and the built-in model of each.
DEFAULT_MODELS = {48000: os.path.join(SRC, "dsp", "models",
                                      "rnndenoise-48k.rnnm"),
                  16000: os.path.join(SRC, "dsp", "models",
                                      "rnndenoise-16k.rnnm")}


class Runner(evaluate.Runner):
    """evaluate.Runner's element run, with a caps filter in front of the
    element that holds it at @rate (the audioresample before it converts
    nothing then: the input is at that rate)."""

    def __init__(self, args, rate):
        super().__init__(args)
        self.rate = rate

    def element(self, method):
        return (["audio/x-raw,rate=%d" % self.rate, "!"]
                + super().element(method))


def runner(build, model, work, rate=metrics.RATE):
    """A Runner for the element alone, at rate."""
    return Runner(SimpleNamespace(build=build, model=model, work=work), rate)


def at_rate(x, rate):
    """A 48 kHz signal decimated to rate (itself at 48 kHz)."""
    up = metrics.RATE // rate
    return x if up == 1 else resample_poly(x, 1, up)


def to_48k(x, rate):
    """A signal at rate upsampled to the metrics' 48 kHz."""
    up = metrics.RATE // rate
    return x if up == 1 else resample_poly(x, up, 1)


def denoise(m, build, model, work, rate):
    """(clean, noisy, denoised, ceiling input) of mixture m at rate: the
    clean speech and the mix (decimated apart below 48 kHz), and the
    element's output on that mix, aligned with the clean speech."""
    clean = at_rate(evaluate.read_wav(m["clean"]), rate)
    noisy = at_rate(evaluate.read_wav(m["noisy"]), rate)
    path = m["noisy"]
    if rate != metrics.RATE:
        path = os.path.join(work, "in-%d.wav" % os.getpid())
        wavfile.write(path, rate, noisy.astype(np.float32))
    out = os.path.join(work, "out-%d.wav" % os.getpid())
    runner(build, model, work, rate).gst("rnndenoise", path, out)
    y = evaluate.read_wav(out, rate)
    return clean, noisy, y


def mixture_parts(job):
    """(element parts, ceiling parts, element total, ceiling total,
    element depth parts, ceiling depth parts) of one mixture; each parts
    list holds (share, part) per range of frequency or of depth."""
    m, edges, split, build, model, work, rate, depths = job
    clean, noisy, y = denoise(m, build, model, work, rate)
    ceiling = evaluate.ideal_band_gains(clean, noisy, edges,
                                        hop=rate // 100)
    clean, noisy, y, ceiling = (to_48k(x, rate)
                                for x in (clean, noisy, y, ceiling))
    y = metrics.align(y, metrics.best_lag(clean, y), clean.size)
    ceiling = ceiling[:clean.size]
    noise = noisy - clean
    return (metrics.speech_energy_lost_parts(clean, noise, y, split),
            metrics.speech_energy_lost_parts(clean, noise, ceiling, split),
            metrics.speech_energy_lost(clean, noise, y),
            metrics.speech_energy_lost(clean, noise, ceiling),
            metrics.speech_energy_lost_depths(clean, noise, y, depths),
            metrics.speech_energy_lost_depths(clean, noise, ceiling, depths))


def split_means(results):
    """Per range, the mean (share, element part, ceiling part) over the
    mixtures where speech was counted, and the mean totals."""
    counted = [r for r in results if not np.isnan(r[2])]
    shares = np.mean([[s for s, _ in r[0]] for r in counted], axis=0)
    element = np.mean([[p for _, p in r[0]] for r in counted], axis=0)
    ceiling = np.mean([[p for _, p in r[1]] for r in counted], axis=0)
    totals = (np.mean([r[2] for r in counted]),
              np.mean([r[3] for r in counted]))
    return shares, element, ceiling, totals, len(counted)


def depth_means(results):
    """Per range of depth, the mean (share, element part, ceiling share,
    ceiling part) over the mixtures where speech was counted."""
    counted = [r for r in results if not np.isnan(r[2])]
    return np.mean([[(es, ep, cs, cp) for (es, ep), (cs, cp)
                     in zip(r[4], r[5])] for r in counted], axis=0)


def kind_means(mixtures, results):
    """split_means() of each noise kind's mixtures, in the order the kinds
    first appear: a list of (kind, means)."""
    kinds = list(dict.fromkeys(m["kind"] for m in mixtures))
    return [(kind, split_means([r for m, r in zip(mixtures, results)
                                if m["kind"] == kind]))
            for kind in kinds]


def range_name(lo, hi):
    """A range of frequencies as the table names it."""
    def hz(f):
        return "%g kHz" % (f / 1000) if f >= 1000 else "%g Hz" % f
    if lo == 0:
        return "below " + hz(hi)
    if hi >= metrics.RATE / 2:
        return "above " + hz(lo)
    return "%s – %s" % (hz(lo), hz(hi))


def table(split, means):
    """The markdown table of split_means()."""
    shares, element, ceiling, totals, _ = means
    lines = ["| range | share of the speech counted | element (dB) | band "
             "ceiling (dB) | excess (dB) | element, mean over its bins "
             "(dB) |", "|---|---|---|---|---|---|"]
    for k, (lo, hi) in enumerate(zip(split[:-1], split[1:])):
        lines.append("| %s | %.0f %% | %.2f | %.2f | %.2f | %.2f |"
                     % (range_name(lo, hi), 100 * shares[k], element[k],
                        ceiling[k], element[k] - ceiling[k],
                        element[k] / shares[k] if shares[k] else np.nan))
    lines.append("| all | 100 %% | %.2f | %.2f | %.2f | |"
                 % (totals[0], totals[1], totals[0] - totals[1]))
    return "\n".join(lines)


def depth_name(lo, hi):
    """A range of depths as the table names it (lo None: from below)."""
    if lo is None:
        return "less than %g dB" % hi
    if hi is None:
        return "%g dB or more" % lo
    return "%g – %g dB" % (lo, hi)


def depth_table(depths, means):
    """The markdown table of depth_means()."""
    bounds = [None] + list(depths) + [None]
    lines = ["| cut by | element: share of the speech counted | element "
             "(dB) | band ceiling: share | band ceiling (dB) |",
             "|---|---|---|---|---|"]
    for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        es, ep, cs, cp = means[k]
        lines.append("| %s | %.1f %% | %.2f | %.1f %% | %.2f |"
                     % (depth_name(lo, hi), 100 * es, ep, 100 * cs, cp))
    return "\n".join(lines)


def kind_table(split, per_kind):
    """The markdown table of kind_means(): per kind its mixtures, totals
    and the element's excess over the ceiling in each range."""
    ranges = [range_name(lo, hi) for lo, hi in zip(split[:-1], split[1:])]
    lines = ["| noise kind | mixtures | element (dB) | band ceiling (dB) | "
             + " | ".join("excess %s" % r for r in ranges) + " |",
             "|---|---|---|---|" + "---|" * len(ranges)]
    for kind, (_, element, ceiling, totals, n) in per_kind:
        lines.append("| %s | %d | %.2f | %.2f | %s |" % (
            kind, n, totals[0], totals[1],
            " | ".join("%+.2f" % (e - c) for e, c in zip(element, ceiling))))
    return "\n".join(lines)


def run(testdirs, edges, split, build, model, max_snr, jobs,
        rate=metrics.RATE, depths=None):
    """split_means() of the mixtures of testdirs up to max_snr dB."""
    mixtures = [m for m in evaluate.load_mixtures(testdirs, "test")
                if m["snr"] <= max_snr]
    if not mixtures:
        sys.exit("speech_lost_split: no mixture up to %g dB" % max_snr)
    with tempfile.TemporaryDirectory() as work:
        runner(build, model, work).check()
        depths = [float(v) for v in (depths or DEFAULT_DEPTHS.split())]
        args = [(m, edges, split, build, model, work, rate, depths)
                for m in mixtures]
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(mixture_parts, args))
    return split_means(results), results, mixtures


def model_edges(build, model, rate=metrics.RATE):
    """The band edges (bins) of a model file for rate, from rnndenoise-model
    info; exits on a model for another rate (the element would refuse it
    or run its built-in model of the stream's rate instead)."""
    info = evaluate.model_info(os.path.join(build, "dsp", "rnndenoise-model"),
                               model)
    model_rate = int(info["sample rate"].split()[0])
    if model_rate != rate:
        sys.exit("speech_lost_split: %s is a %d Hz model; the mixtures run "
                 "at %d Hz (--rate)" % (model, model_rate, rate))
    return [int(v) for v in info["band edges"].split()]


def write_mixtures(folder, clean, snrs, kinds, rng):
    """Mixtures of clean in white noise at snrs dB, with a manifest.tsv as
    synth.py writes it, each named as of a noise kind of kinds; returns the
    noisy signals."""
    noisy = []
    with open(os.path.join(folder, "manifest.tsv"), "w") as f:
        f.write("name\theldout_noise\tsnr\tnoise\tvoices\n")
        for index, (snr, kind_name) in enumerate(zip(snrs, kinds)):
            noise = rng.standard_normal(clean.size) * np.std(clean) \
                * 10 ** (-snr / 20)
            name = "mix%d" % index
            for kind, x in (("clean", clean), ("noisy", clean + noise)):
                wavfile.write(os.path.join(folder, "%s_%s.wav" % (name, kind)),
                              metrics.RATE, x.astype(np.float32))
            noisy.append(evaluate.read_wav(os.path.join(
                folder, name + "_noisy.wav")))
            f.write("%s\tno\t%d\t%s\tsynthetic\n" % (name, snr, kind_name))
    return noisy


def loses_some(result):
    """Whether a mixture's element (result[2]) and ceiling (result[3])
    both lose some speech in dB, and less than any plausible mask would
    (10 dB): the self-check's mixtures are at 0 and 5 dB SNR."""
    return all(0 < v < 10 for v in result[2:4])


def self_check(build, model):
    """Two synthetic mixtures through the element; 0 if what must hold
    holds."""
    rng = np.random.default_rng(9)
    clean = metrics._speechlike(rng, 3.0)
    clean *= 0.1 / np.max(np.abs(clean))
    edges = model_edges(build, model)
    split = [float(v) for v in DEFAULT_SPLIT.split()]
    # Two kinds, both white noise under other names: what is checked is
    # the grouping, not the noise.
    snrs, kinds = (0, 5, 0), ("white", "white", "again")
    with tempfile.TemporaryDirectory() as folder:
        noisy = write_mixtures(folder, clean, snrs, kinds, rng)
        clean = evaluate.read_wav(os.path.join(folder, "mix0_clean.wav"))
        means, results, mixtures = run([folder], edges, split, build, model,
                                       10, 1)
    per_kind = kind_means(mixtures, results)
    by_depth = depth_means(results)
    print(table(split, means))
    print(depth_table([float(v) for v in DEFAULT_DEPTHS.split()], by_depth))
    print(kind_table(split, per_kind))
    shares, element, ceiling, totals, n = means
    weighted = sum(pk[1][4] * np.asarray(pk[1][1]) for pk in per_kind) / n
    checks = [
        ("all three mixtures counted", n == 3),
        ("two kinds, of 2 and 1 mixtures",
         [(k, m[4]) for k, m in per_kind] == [("white", 2), ("again", 1)]),
        ("the kinds' parts, weighted by their mixtures, give the overall "
         "parts", np.allclose(weighted, element, atol=1e-12)),
        ("one mixture's kind is that mixture alone",
         abs(per_kind[1][1][3][0] - results[2][2]) < 1e-12),
        ("the shares add up to 1", abs(np.sum(shares) - 1) < 1e-9),
        ("the element's parts add up to its total",
         abs(np.sum(element) - totals[0]) < 1e-9),
        ("the ceiling's parts add up to its total",
         abs(np.sum(ceiling) - totals[1]) < 1e-9),
        ("the element's and the ceiling's parts by depth add up to their "
         "totals", np.allclose(np.sum(by_depth[:, [1, 3]], axis=0), totals,
                               atol=1e-9)),
        ("the shares by depth add up to 1",
         np.allclose(np.sum(by_depth[:, [0, 2]], axis=0), 1, atol=1e-9))]
    for r, snr, x in zip(results, snrs, noisy):
        first_row = mask_ceiling.mask_figures(clean, x, edges)[0][1]
        checks += [
            ("%d dB: the ceiling's total is mask_ceiling.py's first row "
             "(%.4f, %.4f)" % (snr, r[3], first_row),
             abs(r[3] - first_row) < 1e-9),
            ("%d dB: the element and the ceiling both lose some speech "
             "(%.2f and %.2f dB)" % (snr, r[2], r[3]), loses_some(r))]
    return mask_ceiling.report_checks(checks + self_check_16k(build, rng))


def self_check_16k(build, rng):
    """The checks of the --rate 16000 path, on two synthetic mixtures
    through the element's 16 kHz model."""
    model = DEFAULT_MODELS[16000]
    edges = model_edges(build, model, 16000)
    clean = metrics._speechlike(rng, 3.0)
    clean *= 0.1 / np.max(np.abs(clean))
    split = [0.0, 1000.0, 8000.0, 24000.0]
    snrs = (0, 5)
    with tempfile.TemporaryDirectory() as folder:
        write_mixtures(folder, clean, snrs, ("white", "white"), rng)
        means, results, _ = run([folder], edges, split, build, model, 10, 1,
                                16000)
    print(table(split, means))
    shares, element, ceiling, totals, n = means
    checks = [
        ("16 kHz: both mixtures counted", n == 2),
        ("16 kHz: nothing above 8 kHz counted (share %.2g)" % shares[2],
         shares[2] < 1e-6),
        ("16 kHz: the element's parts add up to its total",
         abs(np.sum(element) - totals[0]) < 1e-9),
        ("16 kHz: the ceiling's parts add up to its total",
         abs(np.sum(ceiling) - totals[1]) < 1e-9)]
    for r, snr in zip(results, snrs):
        checks.append(
            ("16 kHz, %d dB: the element and the ceiling both lose some "
             "speech (%.2f and %.2f dB)" % (snr, r[2], r[3]),
             loses_some(r)))
    return checks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("testdirs", nargs="*")
    ap.add_argument("--edges", help="band edges in bins, as "
                    "rnndenoise-model info prints them (default: the "
                    "model's)")
    ap.add_argument("--model", help="the model file (default: the "
                    "built-in model of --rate)")
    ap.add_argument("--rate", type=int, choices=sorted(DEFAULT_MODELS),
                    default=metrics.RATE,
                    help="the rate the model runs at (default "
                    "%(default)s)")
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--split", default=DEFAULT_SPLIT,
                    help="range edges in Hz (default: %(default)s)")
    ap.add_argument("--max-snr", type=float, default=10.0)
    ap.add_argument("--by-kind", action="store_true",
                    help="also the split of each noise kind alone")
    ap.add_argument("--depths", help="also the split by how deep each "
                    "bin was cut: rising edges in dB (e.g. \"%s\")"
                    % DEFAULT_DEPTHS)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--self-check", action="store_true")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.model = args.model or DEFAULT_MODELS[args.rate]
    if args.self_check:
        return self_check(args.build, args.model)
    if not args.testdirs:
        ap.error("at least one TESTDIR is needed")
    model_band_edges = model_edges(args.build, args.model, args.rate)
    edges = [int(v) for v in args.edges.split()] if args.edges \
        else model_band_edges
    split = [float(v) for v in args.split.split()]
    depths = [float(v) for v in (args.depths or DEFAULT_DEPTHS).split()]
    if not depths or any(a >= b for a, b in zip(depths[:-1], depths[1:])):
        ap.error("--depths: rising edges in dB")
    if len(split) < 2 or split[0] != 0 or split[-1] < metrics.RATE / 2 \
            or any(a >= b for a, b in zip(split[:-1], split[1:])):
        ap.error("--split: rising edges in Hz from 0 to %d"
                 % (metrics.RATE // 2))
    means, results, mixtures = run(args.testdirs, edges, split, args.build,
                                   args.model, args.max_snr, args.jobs,
                                   args.rate, depths)
    print("%d mixtures up to %g dB in %d folders\n"
          % (means[4], args.max_snr, len(args.testdirs)))
    print(table(split, means))
    if args.by_kind:
        print()
        print(kind_table(split, kind_means(mixtures, results)))
    if args.depths:
        print()
        print(depth_table(depths, depth_means(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

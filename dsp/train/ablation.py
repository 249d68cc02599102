#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Score model files on held-out test mixtures, for the model card's
ablation table.

    ablation.py FORWARD TESTDIR
                NAME=MODEL[@LIMIT[@PROTECTION[@SUPPRESSION[@LIFT[@LEVEL[@HUM[@HOLD]]]]]]]
                [...]
                [--jobs J] [--rate 16000] [--gain-db G]
                [--band-limit HZ [--band-limit-speech-only]]

FORWARD is the rnndenoise-forward tool; TESTDIR a test/ or test-real/
folder written by synth.py (snrS/ subfolders, manifest.tsv). Every model
denoises every mixture with the element's own processor (with the
attenuation limit in dB, the speech protection, the stationary
suppression, the harmonic lift, the level normalisation (0 or 1), the
hum removal (0 or 1) and the speech hold after @, the processor's
defaults otherwise;
output aligned with the input), and the mixtures are scored with the quality evaluation's
metrics: mean ΔSI-SDR over −5…10 dB, STOI's change from the
noisy input over −5…10 dB and at +20 dB, speech energy lost in
speech-dominated bins, noise reduction where no one speaks, and ΔSI-SDR on
the hum, babble and room mixtures. Prints a Markdown table.

With --rate 16000 (for 16 kHz models) each mixture's clean speech and
noise are decimated to 16 kHz and mixed again, as docs/quality-16k.md's
evaluation does, and the denoised, clean and noisy 16 kHz signals are
scored upsampled to 48 kHz, the metrics' rate.

With --gain-db G every mixture (its clean speech, noise and noisy input
alike) is scaled by G dB before it is denoised, to see how the figures
hold at input levels other than the mixtures' own (synth.py puts the
active speech at -42…-12 dBFS); the metrics are scale-invariant, so any
change is the processor's. The scaled input is written as 32-bit float,
so it is not clipped.

With --band-limit HZ every mixture's clean speech and noise are low-passed
at HZ (a linear-phase FIR, 75 dB down from HZ on) before
they are mixed, as audio recorded or sent at a lower rate and played at
48 kHz is: nothing above HZ. With --band-limit-speech-only the speech
alone is, and the noise keeps its full band (a narrow-band voice in a
full-band room). The low-passed clean speech is the reference.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "quality"))
import metrics  # noqa: E402
import pairlist  # noqa: E402

LOW_SNRS = (-5.0, 0.0, 5.0, 10.0)
KINDS = ("hum", "babble", "room")
# Settings rnndenoise-forward denoise takes after the model: attenuation
# limit, speech protection, stationary suppression, harmonic lift, level
# normalisation, hum removal, speech hold.
MAX_SETTINGS = 7


def read(path):
    rate, x = wavfile.read(path)
    return x.astype(np.float64)


def at_rate(x, rate):
    """A 48 kHz signal decimated to RATE (48000: as it is)."""
    return x if rate == metrics.RATE else resample_poly(x, rate, metrics.RATE)


def back_to_48k(x, rate):
    """A signal at RATE upsampled to the metrics' 48 kHz."""
    return x if rate == metrics.RATE else resample_poly(x, metrics.RATE, rate)


def mixtures(testdir):
    """(stem, snr, noise kind) of every mixture in the manifest."""
    return [(r["name"], float(r["snr"]), r["noise"]) for r in
            pairlist.read_manifest(os.path.join(testdir, "manifest.tsv"))]


def score(forward, model, testdir, stem, out, rate, gain_db=0.0,
          band_limit=None, speech_only=False):
    """Denoise one mixture at RATE, scaled by GAIN_DB, its speech (and,
    unless SPEECH_ONLY, its noise) low-passed at BAND_LIMIT Hz, with
    MODEL[@LIMIT[@PROTECTION[@SUPPRESSION[@LIFT[@LEVEL[@HUM[@HOLD]]]]]]] (the settings
    go to rnndenoise-forward as they are); returns its figures."""
    base = os.path.join(testdir, stem)
    path, *settings = model.split("@")
    gain = 10 ** (gain_db / 20)
    clean = gain * at_rate(read(base + "_clean.wav"), rate)
    noisy_path = base + "_noisy.wav"
    if band_limit:
        noise = gain * read(base + "_noise.wav")
        clean = metrics.band_limit(gain * read(base + "_clean.wav"),
                                   band_limit)
        if not speech_only:
            noise = metrics.band_limit(noise, band_limit)
        noisy = at_rate(clean + noise, rate)
        clean = at_rate(clean, rate)
    elif rate == metrics.RATE:
        noisy = gain * read(noisy_path)
    else:
        # Decimated apart and mixed again: exactly speech plus noise.
        noisy = clean + gain * at_rate(read(base + "_noise.wav"), rate)
    if rate != metrics.RATE or gain_db != 0.0 or band_limit:
        noisy_path = out + ".in.wav"
        wavfile.write(noisy_path, rate, noisy.astype(np.float32))
    subprocess.run([forward, "denoise", path, noisy_path, out] + settings,
                   check=True, stdout=subprocess.DEVNULL)
    y = back_to_48k(read(out)[:clean.size], rate)
    clean, noisy = back_to_48k(clean, rate), back_to_48k(noisy, rate)
    free = metrics.activity(clean)[1]
    return {"d_sisdr": metrics.si_sdr(clean, y) - metrics.si_sdr(clean, noisy),
            "lost": metrics.speech_energy_lost(clean, noisy - clean, y),
            "d_stoi": metrics.stoi(clean, y) - metrics.stoi(clean, noisy),
            "nr": metrics.noise_reduction(noisy, y, free)}


def kind_cell(d_sisdr):
    """A table cell for one kind's mean ΔSI-SDR: "–" where the mixtures
    have no such kind (the selection's unheard noise has none)."""
    return "%+.2f" % d_sisdr if np.isfinite(d_sisdr) else "–"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("forward")
    ap.add_argument("testdir")
    ap.add_argument("models", nargs="+", metavar="NAME=MODEL")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rate", type=int, default=metrics.RATE,
                    choices=(16000, metrics.RATE),
                    help="the rate the models run at (default 48000)")
    ap.add_argument("--gain-db", type=float, default=0.0,
                    help="scale every mixture by this many dB first")
    ap.add_argument("--band-limit", type=float, metavar="HZ",
                    help="low-pass speech and noise at HZ before mixing")
    ap.add_argument("--band-limit-speech-only", action="store_true",
                    help="with --band-limit: the speech only")
    args = ap.parse_args()
    for spec in args.models:
        if "=" not in spec or spec.split("=", 1)[1].count("@") > MAX_SETTINGS:
            ap.error("%s: expected NAME=MODEL[@LIMIT[@PROTECTION"
                     "[@SUPPRESSION[@LIFT[@LEVEL[@HUM[@HOLD]]]]]]]" % spec)
    if args.band_limit_speech_only and not args.band_limit:
        ap.error("--band-limit-speech-only needs --band-limit")
    if args.band_limit and not 0 < args.band_limit < metrics.RATE / 2:
        ap.error("--band-limit: expected a frequency below %d Hz"
                 % (metrics.RATE // 2))
    rows = mixtures(args.testdir)
    print("| model | ΔSI-SDR −5…10 dB | ΔSTOI −5…10 dB | ΔSTOI +20 dB | "
          "speech lost (dB) | noise reduction where no one speaks (dB) | "
          "%s |" % " | ".join("ΔSI-SDR %s" % k for k in KINDS))
    print("|---|---|---|---|---|---|%s" % ("---|" * len(KINDS)))
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.models:
            name, model = spec.split("=", 1)
            with ThreadPoolExecutor(max_workers=args.jobs) as ex:
                res = list(ex.map(
                    lambda k: score(args.forward, model, args.testdir,
                                    rows[k][0],
                                    os.path.join(tmp, "%d.wav" % k),
                                    args.rate, args.gain_db,
                                    args.band_limit,
                                    args.band_limit_speech_only),
                    range(len(rows))))
            low = [r["d_sisdr"] for r, m in zip(res, rows)
                   if m[1] in LOW_SNRS]
            stoi_low = [r["d_stoi"] for r, m in zip(res, rows)
                        if m[1] in LOW_SNRS]
            stoi_high = [r["d_stoi"] for r, m in zip(res, rows)
                         if m[1] not in LOW_SNRS]
            nr = [r["nr"] for r in res if np.isfinite(r["nr"])]
            kinds = [np.mean([r["d_sisdr"] for r, m in zip(res, rows)
                              if m[2] == k] or [np.nan]) for k in KINDS]
            print("| %s | %+.2f | %+.4f | %+.4f | %.2f | %.1f | %s |" % (
                name, np.mean(low), np.nanmean(stoi_low),
                np.nanmean(stoi_high), np.nanmean([r["lost"] for r in res]),
                np.mean(nr), " | ".join(kind_cell(v) for v in kinds)),
                flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

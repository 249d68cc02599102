#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""noises.py's augmentation of recorded noise (synth.py --noise-augment).

    synth-noise-augment.py

With recordings of a 1 kHz tone for every recorded kind: as recorded, the
noise is that tone, and the same samples as before augmentation existed
(the random draws are unchanged, so the sets made before come out the
same); augmented, the tone moves within 0.7..1.4 times its frequency (the
speed), by a different amount from draw to draw, and some draws are
sudden events over a faint bed (frame levels far apart), others a steady
stream; typing is left as it was. Every draw is unit RMS, finite, of the
length asked. synth.py refuses --noise-augment with --selection. Skipped
(77) without numpy and scipy.
"""

import sys

from checks import Checks, need

np, noises = need("numpy", "noises")

RATE = noises.RATE
SECONDS = 3
check = Checks()
# make_noise("ambience" / "typing", default_rng(7), 3 s) over the tone
# recordings, as noises.py made them before augmentation existed.
BEFORE = {"ambience": (0.08827931004509282, 0.4887839360387954,
                       0.23517441370238518, -0.386316229277938),
          "typing": (-0.3010471898148347, 1.229578721623612,
                     -2.074753422142388, 0.19450651722470694)}
AT = (100, 30000, 77777, 120000)


def tone_recordings():
    """Two seconds of a 1 kHz tone for every source of every recorded
    kind."""
    t = np.arange(2 * RATE) / RATE
    rec = (0.1 * np.sin(2 * np.pi * 1000 * t)).astype(np.float32)
    return {name: [{"kind": "noise", "audio": rec}]
            for names in noises.RECORDED_KINDS.values() for name in names}


def peak_hz(x):
    spectrum = np.abs(np.fft.rfft(x * np.hanning(x.size)))
    return float(np.fft.rfftfreq(x.size, 1.0 / RATE)[np.argmax(spectrum)])


def level_spread_db(x):
    """The 95th minus the 10th percentile of the 10 ms frame levels."""
    frames = x[:x.size // 480 * 480].reshape(-1, 480)
    db = 10 * np.log10(np.mean(frames ** 2, axis=1) + 1e-20)
    return float(np.percentile(db, 95) - np.percentile(db, 10))


def check_shape(kind, x, how):
    rms = float(np.sqrt(np.mean(x ** 2)))
    return (x.size == SECONDS * RATE and bool(np.isfinite(x).all()) and
            abs(rms - 1) < 1e-6), "%s %s: %d samples, RMS %.6f" % (
                kind, how, x.size, rms)


def check_as_before():
    for kind, values in BEFORE.items():
        x = noises.make_noise(kind, np.random.default_rng(7),
                              SECONDS * RATE)
        check(np.allclose([x[i] for i in AT], values, rtol=1e-9, atol=0),
              "%s without augmentation: the samples made before" % kind)
    x = noises.make_noise("ambience", np.random.default_rng(8),
                          SECONDS * RATE)
    check(abs(peak_hz(x) - 1000) < 2 and level_spread_db(x) < 13,
          "as recorded: the tone at %.0f Hz, frame levels %.1f dB apart"
          % (peak_hz(x), level_spread_db(x)))


def check_augmented():
    peaks, spreads, shapes = [], [], []
    for seed in range(10):
        for kind in ("ambience", "music", "city"):
            x = noises.make_noise(kind, np.random.default_rng(seed),
                                  SECONDS * RATE, augment=True)
            shapes.append(check_shape(kind, x, "augmented"))
            peaks.append(peak_hz(x))
            spreads.append(level_spread_db(x))
    bad = [what for ok, what in shapes if not ok]
    check(not bad, "%d augmented draws unit RMS, finite, %d s%s"
          % (len(shapes), SECONDS, (": " + bad[0]) if bad else ""))
    check(min(peaks) >= 690 and max(peaks) <= 1410,
          "the tone within 0.7..1.4 x 1 kHz (%.0f..%.0f Hz)"
          % (min(peaks), max(peaks)))
    moved = sum(abs(p - 1000) > 30 for p in peaks)
    check(moved >= len(peaks) // 2 and np.std(peaks) > 50,
          "the speed varies from draw to draw (%d of %d moved, spread "
          "%.0f Hz)" % (moved, len(peaks), np.std(peaks)))
    events = sum(s > 15 for s in spreads)
    check(0 < events < len(spreads),
          "some draws are sudden events over a faint bed, the others "
          "steady (%d of %d with frame levels over 15 dB apart)"
          % (events, len(spreads)))


def check_typing_unchanged():
    plain = noises.make_noise("typing", np.random.default_rng(4),
                              SECONDS * RATE)
    varied = noises.make_noise("typing", np.random.default_rng(4),
                               SECONDS * RATE, augment=True)
    check(np.array_equal(plain, varied), "typing is not augmented")


def check_refused():
    check.synth_refuses(["--selection", "--real", "/nonexistent",
                         "--noise-augment"], "--noise-augment")


def main():
    noises.set_recorded(tone_recordings())
    check_as_before()
    check_augmented()
    check_typing_unchanged()
    check_refused()
    return check.status()


if __name__ == "__main__":
    sys.exit(main())

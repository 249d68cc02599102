#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rnndenoise-features --level-normalization: features as the processor
computes them with level normalisation, targets as they were.

    features-level.py RNNDENOISE_FEATURES

One mixture (checks.write_signal()'s tone complex over its noise) at its
own level and 20 dB lower. With the option the two give the same features
(the tracker's gain undoes the scale, as in the processor), without it
they do not; the targets (band gains, VAD) are the same with and without
it at either level, since they are ratios of the unscaled energies.
"""

import os
import subprocess
import sys
import tempfile

import checks

np, featfile = checks.need("numpy", "featfile")

QUIET = 0.1  # -20 dB: the tracker's gain stays inside its +30 dB bound


def features(tool, folder, gain, normalised):
    """The features file of the mixture at gain, with or without the
    option."""
    name = "g%g-%s" % (gain, "on" if normalised else "off")
    clean, noise = (os.path.join(folder, "%s-%s.raw" % (part, gain))
                    for part in ("clean", "noise"))
    if not os.path.exists(clean):
        checks.write_signal(clean, 1.0, voiced=True, gain=gain)
        checks.write_signal(noise, 1.0, voiced=False, gain=gain)
    out = os.path.join(folder, name + ".rndf")
    options = ["--level-normalization"] if normalised else []
    subprocess.run([tool, "--layout", "3"] + options + [clean, noise, out],
                   check=True, capture_output=True)
    return featfile.FeatureFile(out)


def main():
    tool = sys.argv[1]
    check = checks.Checks()
    with tempfile.TemporaryDirectory() as folder:
        on = {g: features(tool, folder, g, True) for g in (1.0, QUIET)}
        off = {g: features(tool, folder, g, False) for g in (1.0, QUIET)}

    apart_on = np.abs(on[1.0].features - on[QUIET].features).max()
    apart_off = np.abs(off[1.0].features - off[QUIET].features).max()
    check(apart_on < 1e-3, "with the option the quiet mixture's features are "
          "the loud one's (largest difference %.2g)" % apart_on)
    check(apart_off > 0.5, "without it they differ (largest difference %.2g)"
          % apart_off)
    for gain in (1.0, QUIET):
        gains = np.abs(on[gain].gains - off[gain].gains).max()
        check(gains < 1e-5 and np.array_equal(on[gain].vad, off[gain].vad),
              "at gain %g the targets do not change (gains %.2g apart, VAD "
              "equal)" % (gain, gains))
    sys.exit(check.status())


if __name__ == "__main__":
    main()

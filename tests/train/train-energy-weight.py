#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/train.py --energy-weight: the speech term weighed by the
speech energy of each band.

    train-energy-weight.py RNNDENOISE_FEATURES

Makes a features file from a voiced tone complex (harmonics of 150 Hz) in
white noise. The cepstrum of the features, undone (inverse_dct()), is the
inverse of the orthonormal DCT-II (scipy's) and puts the loudest band where
the tone's fundamental is; speech_energy_weights() lie between 1 and
ENERGY_WEIGHT_MAX, grow with the speech energy within a chunk, and do not
change with the level of the input; weights of 1 leave the loss as it is
and larger ones raise it only where a gain is below its target; one epoch
of train.py --energy-weight 0.5 runs, records the setting and trains
another network than without it. Skipped (77) without PyTorch
(python3-torch) or SciPy.
"""

import sys

from checks import Checks, check_loss_option, need

np, torch, scipy_fft, train = need(
    "numpy", "torch", "scipy.fft", "train")

check = Checks()


def band_of(feats, hz):
    """The band whose centre (a band edge, in FFT bins) is nearest hz."""
    h = feats.header
    edges = np.asarray(feats.band_edges, dtype=float)
    bin_hz = h["sample_rate"] / h["window"]
    return int(np.argmin(np.abs(edges[:h["n_bands"]] * bin_hz - hz)))


def check_inverse_dct(feats):
    n_bands = feats.header["n_bands"]
    idct = train.inverse_dct(n_bands)
    ceps = torch.from_numpy(feats.features[:, :n_bands])
    mine = (ceps @ idct).numpy()
    ref = scipy_fft.idct(feats.features[:, :n_bands].astype(np.float64),
                         type=2, norm="ortho", axis=-1)
    err = np.abs(mine - ref).max()
    check(err < 1e-4, "inverse_dct() undoes the orthonormal DCT-II: max "
          "|diff| from scipy's %.2e" % err)
    loudest = int(np.argmax(mine.mean(axis=0)))
    want = band_of(feats, 150.0)
    check(abs(loudest - want) <= 1,
          "the loudest undone band is the tone's fundamental's (%d, want "
          "%d +- 1)" % (loudest, want))


def check_weights(feats):
    n_bands = feats.header["n_bands"]
    idct = train.inverse_dct(n_bands)
    starts = np.array([0, 60])
    x, tg, _ = train.gather(feats, starts, 60)
    w = train.speech_energy_weights(x, tg, idct, 0.5)
    check(tuple(w.shape) == tuple(tg.shape), "one weight per band and frame")
    check(float(w.min()) >= 1.0 and float(w.max()) <= train.ENERGY_WEIGHT_MAX,
          "weights within [1, %g] (%.3f .. %.3f)"
          % (train.ENERGY_WEIGHT_MAX, float(w.min()), float(w.max())))
    check(float(w.max()) > 1.5, "loud bands weigh more than faint ones "
          "(largest %.2f)" % float(w.max()))
    # Within a chunk the weight is a rising function of the speech energy.
    log_speech = train.speech_log_energy(x[0], tg[0], idct).flatten()
    order = torch.argsort(log_speech)
    steps = torch.diff(w[0].flatten()[order])
    check(float(steps.min()) >= -1e-5,
          "within a chunk, more speech energy never weighs less (smallest "
          "step %.2e)" % float(steps.min()))
    # 20 dB louder input: every log10 band energy + 2, so c[0] + 2 sqrt(n).
    louder = x.clone()
    louder[..., 0] += 2.0 * np.sqrt(n_bands)
    w2 = train.speech_energy_weights(louder, tg, idct, 0.5)
    diff = float((w2 - w).abs().max())
    check(diff < 1e-3, "the weights do not depend on the input level (max "
          "|diff| %.2e at +20 dB)" % diff)
    return x, tg


def check_loss(x, tg):
    torch.manual_seed(3)
    gains = torch.rand_like(tg)
    vad = torch.full(tg.shape[:2], 0.5)
    tv = torch.zeros(tg.shape[:2])
    plain = train.loss_terms(gains, vad, tg, tv, 16.0)[0]
    ones = train.loss_terms(gains, vad, tg, tv, 16.0,
                            torch.ones_like(tg))[0]
    check(torch.equal(plain, ones), "weights of 1 leave the loss as it is "
          "(%.6f, %.6f)" % (plain, ones))
    above = torch.maximum(tg, torch.zeros_like(tg)) + 0.01
    a_plain = train.loss_terms(above.clamp(max=1), vad, tg, tv, 16.0)[0]
    a_twos = train.loss_terms(above.clamp(max=1), vad, tg, tv, 16.0,
                              2 * torch.ones_like(tg))[0]
    check(torch.equal(a_plain, a_twos), "gains above their targets: the "
          "weights change nothing (%.6f, %.6f)" % (a_plain, a_twos))
    below = (tg.clamp(min=0) * 0.5)
    b_plain = train.loss_terms(below, vad, tg, tv, 16.0)[0]
    b_twos = train.loss_terms(below, vad, tg, tv, 16.0,
                              2 * torch.ones_like(tg))[0]
    check(b_twos > b_plain, "gains below their targets: weights of 2 raise "
          "the loss (%.6f to %.6f)" % (b_plain, b_twos))


def check_features(feats):
    check_inverse_dct(feats)
    x, tg = check_weights(feats)
    check_loss(x, tg)


def main():
    return check_loss_option(check, sys.argv[1], "--energy-weight", 0.5,
                             check_features)


if __name__ == "__main__":
    sys.exit(main())

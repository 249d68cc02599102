#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/train.py --band-speech-weight: the speech terms weighed more
on some bands.

    train-band-speech.py RNNDENOISE_FEATURES

On the band edges and targets of a layout-3 features file: the bands whose
centre lies in a range (200-1200 Hz, where the file's voiced tone is), and
only they, weigh W (none without the option); the weights of several
ranges multiply where they overlap; a malformed spec is refused; with the
energy weights the two multiply; weights of 1 leave the loss exactly as it
is; on gains below their targets only in those bands the weights raise the
loss, on gains below their targets only elsewhere they change nothing; one
epoch of train.py --band-speech-weight runs, records the setting and
learns another network than weights of 1. Skipped (77) without PyTorch
(python3-torch).
"""

import sys

from checks import Checks, check_loss_option, need

np, torch, train = need("numpy", "torch", "train")

check = Checks()
LO, HI = 200, 1200  # where the test voice's harmonics are
SPEC = "%d,%d,3" % (LO, HI)


def check_weights(cfg):
    w = train.band_speech_weights(cfg["band_edges"], cfg["sample_rate"],
                                  cfg["window"], SPEC)
    hz = np.asarray(cfg["band_edges"], dtype=np.float64) \
        * cfg["sample_rate"] / cfg["window"]
    centres = (hz[:-1] + hz[1:]) / 2
    inside = torch.from_numpy((centres >= LO) & (centres < HI))
    check(w.shape == (cfg["n_bands"],) and bool(inside.any())
          and bool((w[inside] == 3).all()) and bool((w[~inside] == 1).all()),
          "%d band(s) centred from %d to %d Hz weigh 3, the %d others 1"
          % (int(inside.sum()), LO, HI, int((~inside).sum())))
    check(train.band_speech_weights(cfg["band_edges"], cfg["sample_rate"],
                                    cfg["window"], None) is None,
          "no option, no weights")
    return w, inside


def check_ranges(cfg):
    two = train.band_speech_weights(cfg["band_edges"], cfg["sample_rate"],
                                    cfg["window"], "%d,%d,3,0,%d,2"
                                    % (LO, HI, (LO + HI) // 2))
    one = train.band_speech_weights(cfg["band_edges"], cfg["sample_rate"],
                                    cfg["window"], SPEC)
    second = train.band_speech_weights(cfg["band_edges"], cfg["sample_rate"],
                                       cfg["window"], "0,%d,2"
                                       % ((LO + HI) // 2))
    check(torch.equal(two, one * second) and bool((two == 6).any()),
          "two ranges: their weights multiply where they overlap (%s)"
          % two[:12].tolist())
    for bad in ("1,2", "3,2,1", "a,b,c", "0,100,0", "0,100,2,5"):
        try:
            train.band_speech_ranges(bad)
            refused = False
        except train.argparse.ArgumentTypeError:
            refused = True
        check(refused, "%r refused" % bad)


def check_combined(x, tg, w):
    idct = train.inverse_dct(tg.shape[-1])
    energy = train.speech_energy_weights(x, tg, idct, 0.5)
    both = train.speech_term_weights(x, tg, idct, 0.5, w)
    check(torch.allclose(both, energy * w), "with energy weights, the two "
          "multiply")
    alone = train.speech_term_weights(x, tg, idct, 0.0, w)
    check(torch.equal(alone, w), "without them, the band weights alone")
    check(train.speech_term_weights(x, tg, idct, 0.0, None) is None,
          "neither: no weights")


def check_loss(tg, w, inside):
    vad = torch.full(tg.shape[:2], 0.5)
    tv = torch.zeros(tg.shape[:2])
    torch.manual_seed(3)
    gains = torch.rand_like(tg)
    plain = train.loss_terms(gains, vad, tg, tv, 16.0)[0]
    ones = train.loss_terms(gains, vad, tg, tv, 16.0, torch.ones_like(w))[0]
    check(torch.equal(plain, ones), "weights of 1 leave the loss as it is "
          "(%.6f, %.6f)" % (plain, ones))
    target = tg.clamp(min=0)
    for where, name, raised in ((inside, "in %d-%d Hz" % (LO, HI), True),
                                (~inside, "elsewhere", False)):
        below = torch.where(where, target * 0.1, target)
        a = train.loss_terms(below, vad, tg, tv, 16.0)[0]
        b = train.loss_terms(below, vad, tg, tv, 16.0, w)[0]
        ok = bool(b > a) if raised else bool(torch.equal(a, b))
        check(ok, "gains 20 dB below their targets %s only: the loss %s "
              "(%.6f to %.6f)" % (name, "rises" if raised else "is the same",
                                  a, b))


def check_features(feats):
    cfg = feats.frame_config()
    w, inside = check_weights(cfg)
    check_ranges(cfg)
    x, tg, _ = train.gather(feats, np.array([0, 60]), 60)
    check(bool((tg[..., inside] >= train.SPEECH_DOMINATED).any()),
          "the targets hold speech-dominated bands in %d-%d Hz" % (LO, HI))
    check_combined(x, tg, w)
    check_loss(tg, w, inside)


def main():
    return check_loss_option(check, sys.argv[1], "--band-speech-weight",
                             SPEC, check_features, off="%d,%d,1" % (LO, HI))


if __name__ == "__main__":
    sys.exit(main())

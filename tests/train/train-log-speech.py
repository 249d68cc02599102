#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/train.py --log-speech-weight: the speech lost in dB as a loss
term.

    train-log-speech.py RNNDENOISE_FEATURES

On the band targets of a voiced tone complex in white noise:
log_speech_lost() is (log10(target / gain))^2 where a gain is below a
speech-dominated target and 0 elsewhere (gains at or above their target,
targets below SPEECH_DOMINATED, masked bands), finite for a gain of 0 and
growing past the square-root terms' limit as the gain falls; a weight of 0
leaves the loss exactly as it was, a positive one raises it only where
speech is taken away; one epoch of train.py --log-speech-weight runs,
records the setting and learns another network than without it. Skipped
(77) without PyTorch (python3-torch).
"""

import sys

from checks import Checks, check_loss_option, need

np, torch, train = need("numpy", "torch", "train")

check = Checks()


def check_term(tg):
    dominated = tg >= train.SPEECH_DOMINATED
    check(bool(dominated.any()) and bool((~dominated).any()),
          "the targets hold speech-dominated bands and others (%d of %d)"
          % (int(dominated.sum()), tg.numel()))
    half = tg.clamp(min=0) * 0.5
    lost = train.log_speech_lost(half, tg)
    want = torch.where(dominated, torch.full_like(tg, np.log10(2.0) ** 2),
                       torch.zeros_like(tg))
    err = float((lost - want).abs().max())
    check(err < 1e-5, "halved gains: (log10 2)^2 on speech-dominated bands, "
          "0 elsewhere (max |diff| %.2e)" % err)
    above = train.log_speech_lost(tg.clamp(min=0) + 0.01, tg)
    check(float(above.abs().max()) == 0.0,
          "gains above their targets cost nothing")
    zero = train.log_speech_lost(torch.zeros_like(tg), tg)
    check(bool(torch.isfinite(zero).all()) and float(zero.max()) > 4.0,
          "a gain of 0 costs a finite amount, more than 40 dB lost "
          "(largest %.2f)" % float(zero.max()))


def check_loss(tg):
    torch.manual_seed(3)
    gains = torch.rand_like(tg)
    vad = torch.full(tg.shape[:2], 0.5)
    tv = torch.zeros(tg.shape[:2])
    plain = train.loss_terms(gains, vad, tg, tv, 16.0)[0]
    none = train.loss_terms(gains, vad, tg, tv, 16.0, None, 0.0)[0]
    check(torch.equal(plain, none), "a weight of 0 leaves the loss as it is "
          "(%.6f, %.6f)" % (plain, none))
    above = (tg.clamp(min=0) + 0.01).clamp(max=1)
    a_plain = train.loss_terms(above, vad, tg, tv, 16.0)[0]
    a_log = train.loss_terms(above, vad, tg, tv, 16.0, None, 8.0)[0]
    check(torch.equal(a_plain, a_log), "gains above their targets: the term "
          "changes nothing (%.6f, %.6f)" % (a_plain, a_log))
    below = tg.clamp(min=0) * 0.1
    b_plain = train.loss_terms(below, vad, tg, tv, 16.0)[0]
    b_log = train.loss_terms(below, vad, tg, tv, 16.0, None, 8.0)[0]
    check(b_log > b_plain, "gains 20 dB below their targets: the term "
          "raises the loss (%.6f to %.6f)" % (b_plain, b_log))
    ones = torch.ones_like(tg)
    w_one = train.loss_terms(below, vad, tg, tv, 16.0, ones, 8.0)[0]
    w_two = train.loss_terms(below, vad, tg, tv, 16.0, 2 * ones, 8.0)[0]
    check(torch.equal(w_one, b_log) and w_two > w_one,
          "energy weights scale it as they scale the speech term (%.6f, "
          "%.6f)" % (w_one, w_two))


def check_features(feats):
    _, tg, _ = train.gather(feats, np.array([0, 60]), 60)
    check_term(tg)
    check_loss(tg)


def main():
    return check_loss_option(check, sys.argv[1], "--log-speech-weight", 8.0,
                             check_features)


if __name__ == "__main__":
    sys.exit(main())

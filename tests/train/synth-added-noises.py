#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth.py: noise kinds that join training late, and noise kinds only
the selection mixtures use.

    synth-added-noises.py

split.txt's added-noises are recorded kinds of noises.py whose sources are
sources of sources.py under a licence the model can follow; without
--added-noises the kinds of every set (training, test, selection) are
exactly those before the kinds were added, in the same order, so the sets
made before them come out the same; with it they join training, never the
held-out kinds. split.txt's selection-noises are recorded kinds too, in no
training, test or held-out list, with or without --added-noises, and the
selection mixtures over them go to a folder of their own with their own
random streams. A recorded kind makes unit-RMS noise of the length asked;
synth.py refuses --added-noises with --selection. Skipped (77) without
numpy and scipy.
"""

import sys

from checks import Checks, need

np, noises, sources, synth = need("numpy", "noises", "sources", "synth")

RATE = synth.RATE
check = Checks()
LICENCES = ("GPL-2", "GPL-2+", "CC0-1.0")


def fake_recordings():
    """Two seconds of noise for every source of every recorded kind."""
    rng = np.random.default_rng(3)
    groups = {}
    for names in noises.RECORDED_KINDS.values():
        for name in names:
            audio = (0.1 * rng.standard_normal(2 * RATE)).astype(np.float32)
            groups[name] = [{"kind": "noise", "audio": audio}]
    return groups


def check_recorded(kinds, licences):
    for kind in kinds:
        names = noises.RECORDED_KINDS.get(kind, [])
        check(bool(names), "%s is a recorded kind of noises.py" % kind)
        for name in names:
            src = sources.SOURCES.get(name, {})
            check(src.get("kind") == "noise" and
                  (licences is None or src.get("licence") in licences),
                  "%s: a noise source of sources.py, %s"
                  % (name, src.get("licence")))


def check_shipped_split():
    lines = synth.parse_split()
    added = lines.get("added-noises", [])
    select = lines.get("selection-noises", [])
    check(bool(added), "split.txt names added noise kinds (%s)" % added)
    check(bool(select), "split.txt names selection noise kinds (%s)"
          % select)
    check(not set(added) & set(select), "added and selection kinds apart")
    # Only the trained kinds' licences reach the model.
    check_recorded(added, LICENCES)
    check_recorded(select, None)
    return added, select


def check_kinds(added, select):
    noises.set_recorded({})
    before = synth.read_split()
    noises.set_recorded(fake_recordings())
    plain = synth.read_split()
    late = synth.read_split(added_noises=True)
    for split in (plain, late):
        check(not set(select) & set(split["all_noises"]) and
              split["select_noises"] == select,
              "selection kinds in no other list (%s)"
              % " ".join(split["select_noises"]))
    for key in ("train_noises", "test_noises", "all_noises"):
        check(plain[key] == [k for k in late[key] if k not in added],
              "%s without --added-noises: the others in the same order (%s)"
              % (key, " ".join(plain[key])))
    check(not set(added) & set(plain["all_noises"]),
          "no added kind without --added-noises")
    check(set(added) <= set(late["train_noises"]),
          "with --added-noises they train (%s)" % " ".join(late["train_noises"]))
    check(not set(added) & set(late["test_noises"]),
          "an added kind is never a held-out one")
    # Recorded kinds without recordings take no part, as before.
    check(before["train_noises"] ==
          [k for k in plain["train_noises"] if k in noises.GENERATORS],
          "without recordings only the generators (%s)"
          % " ".join(before["train_noises"]))


def check_made(kinds):
    rng = np.random.default_rng(5)
    for kind in kinds:
        x = noises.make_noise(kind, rng, 3 * RATE)
        rms = float(np.sqrt(np.mean(x ** 2)))
        check(x.size == 3 * RATE and abs(rms - 1) < 1e-6,
              "%s: %d samples at RMS %.6f" % (kind, x.size, rms))


def check_refused():
    check.synth_refuses(["--selection", "--real", "/nonexistent",
                         "--added-noises"], "--added-noises")


def check_selection_streams():
    check(len(set(synth.SETS.values())) == len(synth.SETS) and
          "select-noise" in synth.SETS,
          "the selection noise mixtures draw from a stream of their own")


def main():
    added, select = check_shipped_split()
    check_kinds(added, select)
    check_made(added + select)
    check_selection_streams()
    check_refused()
    return check.status()


if __name__ == "__main__":
    sys.exit(main())

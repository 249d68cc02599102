#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth.py --selection: mixtures of voices no training round hears.

    synth-selection.py

split.txt's selection sources must be disjoint from its held-out test
sources; a recorded file of a selection source belongs to the "select"
subset and to no other, so no training, validation or test pool draws it;
the selection set holds `repeats` mixtures per SNR and per noise kind it is
given, and only those kinds; synth.py refuses --selection without --real
and --repeats below 1; sources.py sees which sources a catalogue lists
(a source added later is built, the others are kept) and reads the
language of a ktuberling file from its folder. Skipped (77) without numpy
and scipy.
"""

import csv
import os
import sys
import tempfile

from checks import Checks, need

np, sources, synth = need("numpy", "sources", "synth")

RATE = synth.RATE
check = Checks()


def row(source, lang, name):
    """A kept speech file of the catalogue: half a second of a tone."""
    t = np.arange(RATE // 2) / RATE
    audio = (0.1 * np.sin(2 * np.pi * 300 * t)).astype(np.float32)
    return {"source": source, "lang": lang, "kind": "speech",
            "file": "%s/%s/%s.ogg" % (source, lang, name),
            "length": audio.size, "bandwidth_hz": 8000.0, "audio": audio}


def fake_split():
    return {"real_select": ["chosen"], "real_test": ["tested:xx"],
            "snrs": [0.0, 10.0], "all_noises": ["white", "pink", "hum"],
            "train_noises": ["white", "pink"], "test_noises": ["hum"]}


def fake_groups():
    groups = {}
    for source, lang in (("chosen", "aa"), ("chosen", "bb"),
                         ("tested", "xx"), ("tested", "yy"),
                         ("trained", "zz")):
        for i in range(40):
            groups.setdefault(source, []).append(
                row(source, lang, "f%02d" % i))
    return groups


def check_subsets():
    split = fake_split()
    groups = fake_groups()
    seen = {}
    for rows in groups.values():
        for r in rows:
            seen.setdefault(r["source"] + ":" + r["lang"], set()).add(
                synth.real_subset(r, split))
    check(seen["chosen:aa"] == {"select"} and seen["chosen:bb"] == {"select"},
          "every file of a selection source is in 'select' (%s)"
          % sorted(seen["chosen:aa"] | seen["chosen:bb"]))
    check(seen["tested:xx"] == {"test"},
          "a held-out language is in 'test' (%s)" % sorted(seen["tested:xx"]))
    check(seen["tested:yy"] <= {"train", "val"} and
          seen["trained:zz"] == {"train", "val"},
          "other files are split between train and val (%s, %s)"
          % (sorted(seen["tested:yy"]), sorted(seen["trained:zz"])))
    for subset in ("train", "val", "test"):
        pool = synth.build_real_pool(groups, split, subset, 1, 9, 1e9)
        check(not any(v.startswith("real:chosen:") for v in pool),
              "the %s pool holds no selection voice (%s)"
              % (subset, sorted(pool)))
    pool = synth.build_real_pool(groups, split, "select", 1, 9, 1e9)
    check(sorted(pool) == ["real:chosen:aa", "real:chosen:bb"],
          "the selection pool holds its voices only (%s)" % sorted(pool))
    return pool


def check_shipped_split():
    split = synth.read_split()
    check(bool(split["real_select"]),
          "split.txt names selection speech (%s)" % split["real_select"])
    check(not set(split["real_select"]) & set(split["real_test"]),
          "selection and test sources are disjoint")
    for name in split["real_select"]:
        check(name.split(":")[0] in sources.SOURCES,
              "selection source %s is a source of sources.py" % name)


def check_selection_set(pool):
    split = fake_split()
    synth.POOLS["select-real"] = pool
    with tempfile.TemporaryDirectory() as out:
        synth.write_test_set(5, out, split, 3.0, 1, pool="select-real",
                             kinds=split["train_noises"], repeats=3)
        with open(os.path.join(out, "manifest.tsv")) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        check(len(rows) == 2 * 2 * 3,
              "3 mixtures per SNR and kind: %d rows" % len(rows))
        kinds = sorted({r["noise"] for r in rows})
        check(kinds == ["pink", "white"],
              "only the kinds given (%s)" % kinds)
        voices = sorted({r["voices"] for r in rows})
        check(all(v.startswith("real:chosen:") for v in voices),
              "spoken by the selection voices (%s)" % voices)
        names = [r["name"] for r in rows]
        check(len(set(names)) == len(names), "every mixture has its name")
        noisy = os.path.join(out, names[0] + "_noisy.wav")
        check(os.path.exists(noisy), "the mixtures are written (%s)"
              % names[0])


def check_refused():
    for args, what in ((["--selection"], "--selection needs --real"),
                       (["--selection", "--real", "/nonexistent",
                         "--repeats", "0"], "--repeats")):
        check.synth_refuses(args, what)


def check_sources():
    lang = sources.SOURCES["ktuberling"]["lang"](
        "usr/share/ktuberling/sounds/el/Kid-Tux.ogg")
    check(lang == "el", "ktuberling language from its folder (%s)" % lang)
    with tempfile.TemporaryDirectory() as out:
        check(sources.catalogued_sources(out) == set(),
              "no catalogue: no source listed")
        rows = [dict(r, kind="speech", licence="GPL-2+", offset=0,
                     seconds=1.0, level_db=-20.0, floor_db=-50.0,
                     clipped=0.0, kept="yes", reason="")
                for r in (row("one", "aa", "a"), row("two", "bb", "b"))]
        sources.write_catalogue(os.path.join(out, "catalogue.tsv"), rows)
        listed = sources.catalogued_sources(out)
        check(listed == {"one", "two"}, "catalogue lists %s" % sorted(listed))


def main():
    pool = check_subsets()
    check_shipped_split()
    check_selection_set(pool)
    check_refused()
    check_sources()
    return check.status()


if __name__ == "__main__":
    sys.exit(main())

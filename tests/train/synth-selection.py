#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""synth.py --selection and --phone: mixtures of voices no training round
hears.

    synth-selection.py

split.txt's selection sources, phone test sources and held-out test
sources must be disjoint; a recorded file of a selection source belongs to
the "select" subset and to no other, so no training, validation or test
pool draws it, and a file of a phone test source to "phone" alike;
the selection set holds `repeats` mixtures per SNR and per noise kind it is
given, and only those kinds; synth.py refuses --selection or --phone
without --real, both at once, and --repeats below 1; sources.py sees which
sources a catalogue lists (a source added later is built, the others are
kept), reads the language of a ktuberling or Asterisk file from its
folder, and leaves out the files a source excludes (the Asterisk beeps,
tones and silences). Skipped (77) without numpy and scipy.
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
            "real_phone": ["called"], "real_added": [],
            "snrs": [0.0, 10.0], "all_noises": ["white", "pink", "hum"],
            "train_noises": ["white", "pink"], "test_noises": ["hum"]}


def fake_groups():
    groups = {}
    for source, lang in (("chosen", "aa"), ("chosen", "bb"),
                         ("tested", "xx"), ("tested", "yy"),
                         ("trained", "zz"), ("called", "pp")):
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
    check(seen["called:pp"] == {"phone"},
          "every file of a phone test source is in 'phone' (%s)"
          % sorted(seen["called:pp"]))
    check(seen["tested:xx"] == {"test"},
          "a held-out language is in 'test' (%s)" % sorted(seen["tested:xx"]))
    check(seen["tested:yy"] <= {"train", "val"} and
          seen["trained:zz"] == {"train", "val"},
          "other files are split between train and val (%s, %s)"
          % (sorted(seen["tested:yy"]), sorted(seen["trained:zz"])))
    for subset in ("train", "val", "test"):
        pool = synth.build_real_pool(groups, split, subset, 1, 9, 1e9)
        check(not any(v.startswith(("real:chosen:", "real:called:"))
                      for v in pool),
              "the %s pool holds no selection or phone voice (%s)"
              % (subset, sorted(pool)))
    pool = synth.build_real_pool(groups, split, "phone", 1, 9, 1e9)
    check(sorted(pool) == ["real:called:pp"],
          "the phone pool holds its voices only (%s)" % sorted(pool))
    pool = synth.build_real_pool(groups, split, "select", 1, 9, 1e9)
    check(sorted(pool) == ["real:chosen:aa", "real:chosen:bb"],
          "the selection pool holds its voices only (%s)" % sorted(pool))
    return pool


def check_shipped_split():
    split = synth.read_split()
    check(bool(split["real_select"]),
          "split.txt names selection speech (%s)" % split["real_select"])
    check(bool(split["real_phone"]),
          "split.txt names phone test speech (%s)" % split["real_phone"])
    named = [split["real_select"], split["real_test"], split["real_phone"]]
    check(sum(len(set(n)) for n in named) == len(set().union(*named)),
          "selection, test and phone test sources are disjoint")
    for name in split["real_select"] + split["real_phone"]:
        check(name.split(":")[0] in sources.SOURCES,
              "source %s is a source of sources.py" % name)


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
                       (["--phone"], "--phone needs --real"),
                       (["--phone", "--selection", "--real", "/nonexistent"],
                        "one set at a time"),
                       (["--selection", "--real", "/nonexistent",
                         "--repeats", "0"], "--repeats")):
        check.synth_refuses(args, what)


def check_sources():
    lang = sources.SOURCES["ktuberling"]["lang"](
        "usr/share/ktuberling/sounds/el/Kid-Tux.ogg")
    check(lang == "el", "ktuberling language from its folder (%s)" % lang)
    check_asterisk_files()
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


def check_asterisk_files():
    """An Asterisk source keeps its prompts and leaves out the rest."""
    src = sources.SOURCES["asterisk-it"]
    check(src["lang"]("x.wav") == "it" and
          sources.SOURCES["asterisk-en"]["lang"]("x.wav") == "en",
          "each Asterisk source names its language")
    with tempfile.TemporaryDirectory() as out:
        voice = os.path.join(out, "pkgs", src["package"], "usr", "share",
                             "asterisk", "sounds", "it_IT_m_Carlo")
        names = ("agent-pass.wav", "digits/1.wav", "beep.wav",
                 "ascending-2tone.wav", "tt-monkeys.wav", "silence/1.wav")
        for name in names:
            os.makedirs(os.path.dirname(os.path.join(voice, name)),
                        exist_ok=True)
            open(os.path.join(voice, name), "w").close()
        kept = [os.path.basename(f)
                for f in sources.source_files(out, "asterisk-it")]
        check(kept == ["agent-pass.wav", "1.wav"],
              "prompts kept, beeps, tones, monkeys and silences left out "
              "(%s)" % kept)


def main():
    pool = check_subsets()
    check_shipped_split()
    check_selection_set(pool)
    check_refused()
    check_sources()
    return check.status()


if __name__ == "__main__":
    sys.exit(main())

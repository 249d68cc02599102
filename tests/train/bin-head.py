#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/bin_head.py --self-check with the shipped float32 model.

    bin-head.py RNNDENOISE_FEATURES MODEL.rnnm
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "dsp", "train", "bin_head.py")

sys.exit(subprocess.run(["/usr/bin/python3", TOOL, "--self-check",
                         sys.argv[1], sys.argv[2]]).returncode)

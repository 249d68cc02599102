/* rnndenoise — dsp: error domain
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "dsp_error.h"

G_DEFINE_QUARK (dsp - error - quark, dsp_error)

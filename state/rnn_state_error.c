/* rnndenoise — state library
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnn_state_error.h"

G_DEFINE_QUARK (rnn - state - error - quark, rnn_state_error)

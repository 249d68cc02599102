/* rnndenoise — state library
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnn_state_error.h"

/* Written out rather than with G_DEFINE_QUARK, whose dashed argument the
 * formatter would split into "rnn - state - ...". */
GQuark
rnn_state_error_quark (void)
{
  return g_quark_from_static_string ("rnn-state-error-quark");
}

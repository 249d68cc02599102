/* rnndenoise — state library: debug fault injection
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_FAULTS_H
#define RNN_STATE_FAULTS_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * RnnStateFaults:
 * @writeback_delay_us: microseconds slept in the middle of every writeback,
 *   between the first and the second half of the state, with the slot lock
 *   held. Tests use it to widen the window in which a torn state could be
 *   observed if the locking were wrong.
 *
 * Parsed once per process from the environment variable RNNDENOISE_FAULTS,
 * a comma-separated list of key=value pairs, e.g. "writeback-delay-us=2000".
 */
typedef struct
{
  guint writeback_delay_us;
} RnnStateFaults;

const RnnStateFaults *rnn_state_faults_get (void);

gboolean rnn_state_faults_parse (const gchar *spec, RnnStateFaults *faults,
    GError **error);

void rnn_state_faults_override (const RnnStateFaults *faults);

G_END_DECLS

#endif /* RNN_STATE_FAULTS_H */

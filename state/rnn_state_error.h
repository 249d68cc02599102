/* rnndenoise — state library
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_ERROR_H
#define RNN_STATE_ERROR_H

#include <glib.h>

G_BEGIN_DECLS

/**
 * RnnStateError:
 * @RNN_STATE_ERROR_INVALID: a descriptor or argument is out of its bounds.
 * @RNN_STATE_ERROR_MISMATCH: a snapshot does not fit the target stream; the
 *   message names the first differing field and both values.
 * @RNN_STATE_ERROR_CORRUPT: serialized bytes are truncated, oversized or do
 *   not pass the magic, version or checksum checks.
 * @RNN_STATE_ERROR_UNSUPPORTED: the bytes are well formed but describe
 *   something a streaming recurrence cannot use (a bidirectional state).
 */
typedef enum
{
  RNN_STATE_ERROR_INVALID,
  RNN_STATE_ERROR_MISMATCH,
  RNN_STATE_ERROR_CORRUPT,
  RNN_STATE_ERROR_UNSUPPORTED,
} RnnStateError;

#define RNN_STATE_ERROR (rnn_state_error_quark ())
GQuark rnn_state_error_quark (void);

G_END_DECLS

#endif /* RNN_STATE_ERROR_H */

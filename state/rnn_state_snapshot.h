/* rnndenoise — state library: serialized snapshots
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_SNAPSHOT_H
#define RNN_STATE_SNAPSHOT_H

#include <glib.h>

#include "rnn_state_bytes.h"
#include "rnn_state_descriptor.h"

G_BEGIN_DECLS

/* "RNNS" read as a little-endian u32. */
#define RNN_STATE_SNAPSHOT_MAGIC 0x534e4e52u
#define RNN_STATE_SNAPSHOT_VERSION 1

/**
 * RnnStateSnapshot:
 *
 * A parsed snapshot: the descriptor it was taken with, the generation of the
 * slot, the hidden section (in the descriptor's element type) and the
 * DSP-history section (F32). Opaque; see docs/state-contract.md for the byte
 * layout.
 */
typedef struct _RnnStateSnapshot RnnStateSnapshot;

GBytes *rnn_state_snapshot_serialize (const RnnStateDescriptor *desc,
    guint64 generation, gconstpointer hidden, const gfloat *history);

RnnStateSnapshot *rnn_state_snapshot_parse (gconstpointer data, gsize size,
    GError **error);

void rnn_state_snapshot_free (RnnStateSnapshot *snapshot);

const RnnStateDescriptor *rnn_state_snapshot_get_descriptor (
    const RnnStateSnapshot *snapshot);

guint64 rnn_state_snapshot_get_generation (const RnnStateSnapshot *snapshot);

gconstpointer rnn_state_snapshot_get_hidden (const RnnStateSnapshot *snapshot);

const gfloat *rnn_state_snapshot_get_history (const RnnStateSnapshot *snapshot);

gboolean rnn_state_snapshot_validate (const RnnStateSnapshot *snapshot,
    const RnnStateDescriptor *target, GError **error);

gboolean rnn_state_snapshot_convert (const RnnStateSnapshot *snapshot,
    const RnnStateDescriptor *target, gpointer hidden_out, gfloat *history_out,
    GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RnnStateSnapshot, rnn_state_snapshot_free)

G_END_DECLS

#endif /* RNN_STATE_SNAPSHOT_H */

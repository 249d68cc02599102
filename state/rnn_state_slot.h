/* rnndenoise — state library: the persistent slot of one stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef RNN_STATE_SLOT_H
#define RNN_STATE_SLOT_H

#include <glib.h>

#include "rnn_state_descriptor.h"

G_BEGIN_DECLS

/**
 * RnnStateSlot:
 *
 * The per-stream storage that carries the recurrent state (and the DSP
 * history of the stream) from one invocation to the next.
 *
 * Allocated once; the storage never moves while the slot lives. Every
 * function is thread-safe: one streaming thread runs invocations
 * (rnn_state_slot_read() ... rnn_state_slot_writeback()) while application
 * threads may take snapshots, import, reset and read counters at any time.
 * An internal mutex makes each writeback atomic: a snapshot always holds the
 * state after some complete invocation.
 */
typedef struct _RnnStateSlot RnnStateSlot;

/**
 * RnnStateCounters:
 * @invocations: writebacks done (invocations that processed a frame).
 * @bytes_written_back: bytes stored into the slot by writebacks.
 * @bytes_side_copied: bytes converted into side outputs by writebacks.
 * @copies: whole-state transfers: reads of the initial state, writebacks,
 *   side outputs and snapshots, one each.
 * @imports: imports applied to the slot.
 * @rejected_imports: imports refused by validation.
 * @resets: resets applied to the slot.
 */
typedef struct
{
  guint64 invocations;
  guint64 bytes_written_back;
  guint64 bytes_side_copied;
  guint64 copies;
  guint64 imports;
  guint64 rejected_imports;
  guint64 resets;
} RnnStateCounters;

RnnStateSlot *rnn_state_slot_new (const RnnStateDescriptor *desc,
    GError **error);

void rnn_state_slot_free (RnnStateSlot *slot);

const RnnStateDescriptor *rnn_state_slot_get_descriptor (
    const RnnStateSlot *slot);

gconstpointer rnn_state_slot_get_storage (const RnnStateSlot *slot);

gboolean rnn_state_slot_set_initial_state (RnnStateSlot *slot,
    const gfloat *hidden, const gfloat *history);

void rnn_state_slot_read (RnnStateSlot *slot, gfloat *hidden, gfloat *history);

void rnn_state_slot_writeback (RnnStateSlot *slot, const gfloat *final_hidden,
    const gfloat *final_history, const RnnStateDescriptor *side_desc,
    gpointer side_out, gsize side_out_size);

void rnn_state_slot_reset (RnnStateSlot *slot, gboolean drop_pending_import);

gboolean rnn_state_slot_import (RnnStateSlot *slot, gconstpointer data,
    gsize size, GError **error);

gboolean rnn_state_slot_has_pending_import (RnnStateSlot *slot);

gboolean rnn_state_slot_move_pending_import (RnnStateSlot *from,
    RnnStateSlot *to, GError **error);

GBytes *rnn_state_slot_snapshot (RnnStateSlot *slot);

gboolean rnn_state_slot_peek (RnnStateSlot *slot, gfloat *hidden,
    gfloat *history, guint64 *generation);

guint64 rnn_state_slot_get_generation (RnnStateSlot *slot);

void rnn_state_slot_get_counters (RnnStateSlot *slot,
    RnnStateCounters *counters);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RnnStateSlot, rnn_state_slot_free)

G_END_DECLS

#endif /* RNN_STATE_SLOT_H */

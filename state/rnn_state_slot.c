/* rnndenoise — state library: the persistent slot of one stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "rnn_state_error.h"
#include "rnn_state_faults.h"
#include "rnn_state_lock.h"
#include "rnn_state_quant.h"
#include "rnn_state_slot.h"
#include "rnn_state_snapshot.h"

struct _RnnStateSlot
{
  /* Immutable after _new: read without the lock. */
  RnnStateDescriptor desc;
  gsize n_values;
  gsize hidden_bytes;
  gsize history_bytes;

  /* Everything below is guarded by @lock. The buffers are allocated once in
   * _new and never move, so the address the writeback targets is the address
   * the next read takes its initial state from (contract point 3). */
  RnnStateLock lock;
  gpointer hidden;         /* owned; desc.element_type, native order */
  gfloat *history;         /* owned; desc.history_size values */
  gfloat *initial_hidden;  /* owned; F32, zero unless set */
  gfloat *initial_history; /* owned; zero unless set */
  gpointer pending_hidden; /* owned; an accepted import, slot's type */
  gfloat *pending_history; /* owned */
  gboolean has_pending_import;
  gboolean in_invocation;   /* between read and writeback */
  gboolean reset_requested; /* a reset that arrived mid-invocation */
  guint64 generation;
  RnnStateCounters counters;
};

/**
 * rnn_state_slot_new:
 * @desc: the descriptor of the stream's state (copied)
 * @error: return location for a #RNN_STATE_ERROR_INVALID error
 *
 * Allocates the slot and every buffer it will ever use, set to the constant
 * initial state (zero).
 *
 * Returns: (transfer full) (nullable): a new slot, free with
 * rnn_state_slot_free(); NULL if @desc is invalid.
 */
RnnStateSlot *
rnn_state_slot_new (const RnnStateDescriptor *desc, GError **error)
{
  RnnStateSlot *slot;

  g_return_val_if_fail (desc != NULL, NULL);

  if (!rnn_state_descriptor_validate (desc, error))
    return NULL;

  slot = g_new0 (RnnStateSlot, 1);
  slot->desc = *desc;
  slot->n_values = rnn_state_descriptor_n_values (desc);
  slot->hidden_bytes = rnn_state_descriptor_hidden_bytes (desc);
  slot->history_bytes = (gsize) desc->history_size * sizeof (gfloat);
  rnn_state_lock_init (&slot->lock);
  /* g_malloc0 (0) returns NULL; +1 keeps every pointer valid and distinct. */
  slot->hidden = g_malloc0 (slot->hidden_bytes + 1);
  slot->history = g_malloc0 (slot->history_bytes + 1);
  slot->initial_hidden = g_malloc0 (slot->n_values * sizeof (gfloat) + 1);
  slot->initial_history = g_malloc0 (slot->history_bytes + 1);
  slot->pending_hidden = g_malloc0 (slot->hidden_bytes + 1);
  slot->pending_history = g_malloc0 (slot->history_bytes + 1);
  /* Zero is not the all-zero bit pattern when the zero point is not 0. */
  rnn_state_quantize (&slot->desc, slot->initial_hidden, slot->hidden);
  return slot;
}

/**
 * rnn_state_slot_free:
 * @slot: (nullable): a slot
 *
 * Frees the slot. No thread may use it any more.
 */
void
rnn_state_slot_free (RnnStateSlot *slot)
{
  if (slot == NULL)
    return;
  rnn_state_lock_clear (&slot->lock);
  g_free (slot->hidden);
  g_free (slot->history);
  g_free (slot->initial_hidden);
  g_free (slot->initial_history);
  g_free (slot->pending_hidden);
  g_free (slot->pending_history);
  g_free (slot);
}

/**
 * rnn_state_slot_get_descriptor:
 * @slot: a slot
 *
 * Returns: (transfer none): the slot's descriptor, valid while @slot lives.
 */
const RnnStateDescriptor *
rnn_state_slot_get_descriptor (const RnnStateSlot *slot)
{
  g_return_val_if_fail (slot != NULL, NULL);
  return &slot->desc;
}

/**
 * rnn_state_slot_get_storage:
 * @slot: a slot
 *
 * For tests of the address relationship: the address of the hidden-state
 * storage, which every writeback targets and every read takes from. It
 * never changes while @slot lives. Never write through it.
 *
 * Returns: (transfer none): the storage address.
 */
gconstpointer
rnn_state_slot_get_storage (const RnnStateSlot *slot)
{
  g_return_val_if_fail (slot != NULL, NULL);
  return slot->hidden;
}

/**
 * rnn_state_slot_set_initial_state:
 * @slot: a slot
 * @hidden: (nullable): n_values F32 values, or NULL for zero
 * @history: (nullable): history_size values, or NULL for zero
 *
 * Sets the constant state that later resets restore. It does not reset.
 *
 * Returns: TRUE.
 */
gboolean
rnn_state_slot_set_initial_state (RnnStateSlot *slot, const gfloat *hidden,
    const gfloat *history)
{
  g_return_val_if_fail (slot != NULL, FALSE);

  rnn_state_lock (&slot->lock);
  if (hidden != NULL)
    memcpy (slot->initial_hidden, hidden, slot->n_values * sizeof (gfloat));
  else
    memset (slot->initial_hidden, 0, slot->n_values * sizeof (gfloat));
  if (history != NULL)
    memcpy (slot->initial_history, history, slot->history_bytes);
  else
    memset (slot->initial_history, 0, slot->history_bytes);
  rnn_state_unlock (&slot->lock);
  return TRUE;
}

/* Called with slot->lock held. */
static void
apply_reset_unlocked (RnnStateSlot *slot)
{
  rnn_state_quantize (&slot->desc, slot->initial_hidden, slot->hidden);
  memcpy (slot->history, slot->initial_history, slot->history_bytes);
  slot->reset_requested = FALSE;
  slot->generation++;
  slot->counters.resets++;
}

/* Called with slot->lock held. */
static void
apply_pending_import_unlocked (RnnStateSlot *slot)
{
  memcpy (slot->hidden, slot->pending_hidden, slot->hidden_bytes);
  memcpy (slot->history, slot->pending_history, slot->history_bytes);
  slot->has_pending_import = FALSE;
  slot->generation++;
  slot->counters.imports++;
}

/**
 * rnn_state_slot_read:
 * @slot: a slot
 * @hidden: (out caller-allocates): n_values F32 values, layer-major
 * @history: (out caller-allocates) (nullable): history_size F32 values
 *
 * Starts an invocation: applies an accepted import if one is pending (so it
 * takes effect after any reset done before this call), then copies the
 * initial state of this invocation out of the slot, converted to F32.
 * Called by the streaming thread only; pair it with
 * rnn_state_slot_writeback().
 */
void
rnn_state_slot_read (RnnStateSlot *slot, gfloat *hidden, gfloat *history)
{
  g_return_if_fail (slot != NULL && hidden != NULL);

  rnn_state_lock (&slot->lock);
  if (slot->has_pending_import)
    apply_pending_import_unlocked (slot);
  rnn_state_dequantize (&slot->desc, slot->hidden, hidden);
  if (history != NULL)
    memcpy (history, slot->history, slot->history_bytes);
  slot->in_invocation = TRUE;
  slot->counters.copies++;
  rnn_state_unlock (&slot->lock);
}

/* Called with slot->lock held. The fault hook sleeps between the hidden and
 * the history sections, so that a reader that did not take the lock would
 * see a torn state. */
static void
store_final_state_unlocked (RnnStateSlot *slot, const gfloat *final_hidden,
    const gfloat *final_history)
{
  guint delay_us = rnn_state_faults_get ()->writeback_delay_us;

  rnn_state_quantize (&slot->desc, final_hidden, slot->hidden);
  if (delay_us > 0)
    g_usleep (delay_us);
  if (final_history != NULL)
    memcpy (slot->history, final_history, slot->history_bytes);
}

/**
 * rnn_state_slot_writeback:
 * @slot: a slot
 * @final_hidden: n_values F32 values: the state after the last frame
 * @final_history: (nullable): history_size values, or NULL to keep the
 *   slot's history
 * @side_desc: (nullable): the side output's format: same layout as the
 *   slot, any element type and quantisation
 * @side_out: (nullable): rnn_state_descriptor_hidden_bytes (@side_desc)
 *   bytes, or NULL when no side output is wanted (unlinked side pad)
 * @side_out_size: size of @side_out in bytes
 *
 * Ends an invocation with the fan-out of contract point 1: @final_hidden is
 * converted (a) into the slot and (b) into @side_out, each directly from
 * @final_hidden; the side output never reads the slot. The slot write is
 * atomic for every other caller and completes before this returns, so the
 * next read and any snapshot see it whole. A reset requested while the
 * invocation ran is applied right after the writeback.
 */
void
rnn_state_slot_writeback (RnnStateSlot *slot, const gfloat *final_hidden,
    const gfloat *final_history, const RnnStateDescriptor *side_desc,
    gpointer side_out, gsize side_out_size)
{
  gboolean want_side;

  g_return_if_fail (slot != NULL && final_hidden != NULL);
  want_side = side_desc != NULL && side_out != NULL;
  g_return_if_fail (!want_side
      || side_out_size == rnn_state_descriptor_hidden_bytes (side_desc));
  g_return_if_fail (!want_side
      || rnn_state_descriptor_n_values (side_desc) == slot->n_values);

  /* (b) The side output belongs to the caller: convert it without the lock. */
  if (want_side)
    rnn_state_quantize (side_desc, final_hidden, side_out);

  /* (a) The writeback into the slot. */
  rnn_state_lock (&slot->lock);
  store_final_state_unlocked (slot, final_hidden, final_history);
  slot->in_invocation = FALSE;
  slot->generation++;
  slot->counters.invocations++;
  slot->counters.copies++;
  slot->counters.bytes_written_back
      += slot->hidden_bytes + (final_history != NULL ? slot->history_bytes : 0);
  if (want_side) {
    slot->counters.copies++;
    slot->counters.bytes_side_copied += side_out_size;
  }
  if (slot->reset_requested)
    apply_reset_unlocked (slot);
  rnn_state_unlock (&slot->lock);
}

/**
 * rnn_state_slot_reset:
 * @slot: a slot
 * @drop_pending_import: TRUE to also forget an accepted import that has not
 *   taken effect yet (an application's reset), FALSE to keep it (a reset
 *   caused by stream events, after which the import seeds the next
 *   invocation)
 *
 * Restores the constant initial state, hidden state and DSP history. If an
 * invocation is running (another thread between read and writeback), the
 * reset takes effect when its writeback completes.
 */
void
rnn_state_slot_reset (RnnStateSlot *slot, gboolean drop_pending_import)
{
  g_return_if_fail (slot != NULL);

  rnn_state_lock (&slot->lock);
  if (drop_pending_import)
    slot->has_pending_import = FALSE;
  if (slot->in_invocation)
    slot->reset_requested = TRUE;
  else
    apply_reset_unlocked (slot);
  rnn_state_unlock (&slot->lock);
}

/**
 * rnn_state_slot_import:
 * @slot: a slot
 * @data: snapshot bytes (see rnn_state_snapshot_serialize())
 * @size: size of @data in bytes
 * @error: return location for a #RNN_STATE_ERROR error naming the field and
 *   both values
 *
 * Parses and validates a snapshot against the slot's descriptor (contract
 * point 8) and rescales it into the slot's element type. An accepted import
 * takes effect atomically at the start of the next invocation
 * (rnn_state_slot_read()), replacing any earlier pending import; a rejected
 * one changes nothing but the rejected-imports counter.
 *
 * Returns: TRUE if the import was accepted.
 */
gboolean
rnn_state_slot_import (RnnStateSlot *slot, gconstpointer data, gsize size,
    GError **error)
{
  RnnStateSnapshot *snapshot;
  gboolean ok;

  g_return_val_if_fail (slot != NULL, FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);

  snapshot = rnn_state_snapshot_parse (data, size, error);
  ok = snapshot != NULL
      && rnn_state_snapshot_validate (snapshot, &slot->desc, error);

  rnn_state_lock (&slot->lock);
  if (ok) {
    /* Cannot fail after validation: only the pending buffers change. */
    rnn_state_snapshot_convert (snapshot, &slot->desc, slot->pending_hidden,
        slot->pending_history, NULL);
    slot->has_pending_import = TRUE;
  } else {
    slot->counters.rejected_imports++;
  }
  rnn_state_unlock (&slot->lock);

  rnn_state_snapshot_free (snapshot);
  return ok;
}

/**
 * rnn_state_slot_has_pending_import:
 * @slot: a slot
 *
 * Returns: TRUE if an accepted import waits for the next invocation.
 */
gboolean
rnn_state_slot_has_pending_import (RnnStateSlot *slot)
{
  gboolean pending;

  g_return_val_if_fail (slot != NULL, FALSE);

  rnn_state_lock (&slot->lock);
  pending = slot->has_pending_import;
  rnn_state_unlock (&slot->lock);
  return pending;
}

/**
 * rnn_state_slot_move_pending_import:
 * @from: a slot that may hold an accepted import not applied yet
 * @to: a slot no other thread uses yet (a stream's new slot)
 * @error: return location for a #RNN_STATE_ERROR_MISMATCH error naming the
 *   first field in which the two slots differ
 *
 * Hands an import accepted by @from over to @to, when a stream replaces its
 * slot (a new format) before the import took effect: the import has one
 * owner at any time. Nothing moves if @from has no pending import. The
 * slots must have the same layout, element type and quantisation; if not, @to is left as
 * it is and @from keeps its import.
 *
 * Returns: TRUE if nothing was pending or the import moved.
 */
gboolean
rnn_state_slot_move_pending_import (RnnStateSlot *from, RnnStateSlot *to,
    GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (from != NULL && to != NULL && from != to, FALSE);

  rnn_state_lock (&from->lock);
  if (from->has_pending_import) {
    ok = rnn_state_descriptor_check_layout (&to->desc, &from->desc, error);
    if (ok
        && (to->desc.element_type != from->desc.element_type
            || memcmp (to->desc.scale, from->desc.scale,
                   sizeof (to->desc.scale))
                != 0
            || memcmp (to->desc.zero_point, from->desc.zero_point,
                   sizeof (to->desc.zero_point))
                != 0)) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
          "element type %s, stream expects %s (same quantisation)",
          rnn_state_element_type_name (from->desc.element_type),
          rnn_state_element_type_name (to->desc.element_type));
      ok = FALSE;
    }
    if (ok) {
      rnn_state_lock (&to->lock);
      memcpy (to->pending_hidden, from->pending_hidden, to->hidden_bytes);
      memcpy (to->pending_history, from->pending_history, to->history_bytes);
      to->has_pending_import = TRUE;
      rnn_state_unlock (&to->lock);
      from->has_pending_import = FALSE;
    }
  }
  rnn_state_unlock (&from->lock);
  return ok;
}

/**
 * rnn_state_slot_snapshot:
 * @slot: a slot
 *
 * Serializes the whole slot (hidden state and DSP history) as it is after
 * the last completed writeback, reset or import: never a torn mix.
 *
 * Returns: (transfer full): the snapshot bytes.
 */
GBytes *
rnn_state_slot_snapshot (RnnStateSlot *slot)
{
  GBytes *bytes;

  g_return_val_if_fail (slot != NULL, NULL);

  rnn_state_lock (&slot->lock);
  bytes = rnn_state_snapshot_serialize (&slot->desc, slot->generation,
      slot->hidden, slot->history);
  slot->counters.copies++;
  rnn_state_unlock (&slot->lock);
  return bytes;
}

/**
 * rnn_state_slot_peek:
 * @slot: a slot
 * @hidden: (out caller-allocates): n_values F32 values
 * @history: (out caller-allocates) (nullable): history_size values
 * @generation: (out) (optional): the generation the values belong to
 *
 * Copies the current state, hidden section converted to F32, without
 * starting an invocation: a pending import stays pending and nothing is
 * written back. Used for look-ahead work that must not change the stream
 * (draining its tail at the end) and by tests.
 *
 * Returns: TRUE.
 */
gboolean
rnn_state_slot_peek (RnnStateSlot *slot, gfloat *hidden, gfloat *history,
    guint64 *generation)
{
  g_return_val_if_fail (slot != NULL && hidden != NULL, FALSE);

  rnn_state_lock (&slot->lock);
  rnn_state_dequantize (&slot->desc, slot->hidden, hidden);
  if (history != NULL)
    memcpy (history, slot->history, slot->history_bytes);
  if (generation != NULL)
    *generation = slot->generation;
  rnn_state_unlock (&slot->lock);
  return TRUE;
}

/**
 * rnn_state_slot_get_generation:
 * @slot: a slot
 *
 * Returns: how many times the slot's content changed (writebacks, resets,
 * applied imports) since it was made.
 */
guint64
rnn_state_slot_get_generation (RnnStateSlot *slot)
{
  guint64 generation;

  g_return_val_if_fail (slot != NULL, 0);

  rnn_state_lock (&slot->lock);
  generation = slot->generation;
  rnn_state_unlock (&slot->lock);
  return generation;
}

/**
 * rnn_state_slot_get_counters:
 * @slot: a slot
 * @counters: (out caller-allocates): filled with a consistent copy
 */
void
rnn_state_slot_get_counters (RnnStateSlot *slot, RnnStateCounters *counters)
{
  g_return_if_fail (slot != NULL && counters != NULL);

  rnn_state_lock (&slot->lock);
  *counters = slot->counters;
  rnn_state_unlock (&slot->lock);
}

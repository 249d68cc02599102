/* rnndenoise — fuzzing: snapshot bytes into the state library
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each input is given to rnn_state_snapshot_parse() twice: as it is, and
 * with its trailing CRC-32 rewritten, so that mutations reach the header and
 * section checks behind the checksum. Then, for every fixed stream of
 * fuzz_snapshot_target(), rnn_state_snapshot_validate() and
 * rnn_state_slot_import(), and for an accepted import the slot's next
 * invocation (read, writeback with a side output, snapshot). Checked:
 * - parsing allocates no more than the bytes given (ASan builds);
 * - a parsed snapshot serializes back to exactly the bytes parsed;
 * - the slot accepts exactly what parse + validate accept; a refused import
 *   sets an RNN_STATE_ERROR and leaves the slot bit-identical;
 * - an accepted import is what the next read returns: the history
 *   bit-exact, the hidden state rescaled within half a quantisation step
 *   (bit-exact for an equal format), saturating outside the target's range;
 * - the state after the writeback snapshots, parses and validates again.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "state/rnn_state_error.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_slot.h"
#include "state/rnn_state_snapshot.h"
#include "tests/fuzz/fuzz_common.h"

/* What parsing may allocate beyond the bytes given: the snapshot object and
 * an error message. */
#define PARSE_SLACK 4096

static void
check_parse_allocations (const FuzzAllocStats *stats, gsize size)
{
  if (!fuzz_alloc_tracking ())
    return;
  FUZZ_CHECK (stats->largest <= size + PARSE_SLACK,
      "parsing %" G_GSIZE_FORMAT " bytes allocated a block of %" G_GSIZE_FORMAT,
      size, stats->largest);
  FUZZ_CHECK (stats->total <= 2 * size + PARSE_SLACK,
      "parsing %" G_GSIZE_FORMAT " bytes allocated %" G_GSIZE_FORMAT
      " bytes in %" G_GSIZE_FORMAT " blocks",
      size, stats->total, stats->count);
}

/* A parsed snapshot holds every byte of the format: serializing it again
 * must reproduce the input exactly. */
static void
check_round_trip (const RnnStateSnapshot *snapshot, const guint8 *data,
    gsize size)
{
  const RnnStateDescriptor *desc = rnn_state_snapshot_get_descriptor (snapshot);
  GBytes *again;

  FUZZ_CHECK (rnn_state_descriptor_validate (desc, NULL),
      "a parsed descriptor does not validate");
  again = rnn_state_snapshot_serialize (desc,
      rnn_state_snapshot_get_generation (snapshot),
      rnn_state_snapshot_get_hidden (snapshot),
      rnn_state_snapshot_get_history (snapshot));
  FUZZ_CHECK (g_bytes_get_size (again) == size
          && memcmp (g_bytes_get_data (again, NULL), data, size) == 0,
      "serializing the parsed snapshot gives %" G_GSIZE_FORMAT
      " other bytes, not the %" G_GSIZE_FORMAT " parsed",
      g_bytes_get_size (again), size);
  g_bytes_unref (again);
}

static void
element_range (RnnStateElementType type, gint32 *q_min, gint32 *q_max)
{
  *q_min = type == RNN_STATE_ELEMENT_S16 ? G_MININT16 : G_MININT8;
  *q_max = type == RNN_STATE_ELEMENT_S16 ? G_MAXINT16 : G_MAXINT8;
}

static gint32
quantized_at (const RnnStateDescriptor *desc, gconstpointer q, gsize i)
{
  if (desc->element_type == RNN_STATE_ELEMENT_S16)
    return ((const gint16 *) q)[i];
  return ((const gint8 *) q)[i];
}

/* One value rescaled into a quantised format: NaN gives the zero point,
 * a value inside the range lands within half a step (plus float rounding),
 * a value more than a step outside saturates. */
static void
check_quantized_value (const RnnStateDescriptor *target, guint layer, gfloat v,
    gint32 q)
{
  gdouble scale = target->scale[layer];
  gint32 zp = target->zero_point[layer], q_min, q_max;
  gdouble lo, hi, w;

  element_range (target->element_type, &q_min, &q_max);
  lo = (q_min - zp) * scale;
  hi = (q_max - zp) * scale;
  w = (q - zp) * scale;
  if (isnan (v)) {
    FUZZ_CHECK (q == zp, "NaN became %d, zero point %d", q, zp);
  } else if (v >= lo && v <= hi) {
    FUZZ_CHECK (fabs (w - v) <= 0.51 * scale + 1e-6 * fabs (v),
        "layer %u: %g became %g (q %d, scale %g, zero point %d)", layer,
        (gdouble) v, w, q, scale, zp);
  } else if (v > hi + scale) {
    FUZZ_CHECK (q == q_max, "layer %u: %g above the range became q %d", layer,
        (gdouble) v, q);
  } else if (v < lo - scale) {
    FUZZ_CHECK (q == q_min, "layer %u: %g below the range became q %d", layer,
        (gdouble) v, q);
  }
}

/* Checks rnn_state_snapshot_convert() output @converted (in @target's
 * format) against the snapshot's own values. */
static void
check_rescale (const RnnStateSnapshot *snapshot,
    const RnnStateDescriptor *target, gconstpointer converted)
{
  const RnnStateDescriptor *source
      = rnn_state_snapshot_get_descriptor (snapshot);
  gsize n = rnn_state_descriptor_n_values (target), i;
  gfloat *v;
  guint layer;

  if (rnn_state_descriptor_equal (source, target, NULL)) {
    FUZZ_CHECK (memcmp (converted, rnn_state_snapshot_get_hidden (snapshot),
                    rnn_state_descriptor_hidden_bytes (target))
            == 0,
        "an import in the slot's own format is not bit-exact");
    return;
  }
  v = g_new (gfloat, n);
  rnn_state_dequantize (source, rnn_state_snapshot_get_hidden (snapshot), v);
  if (target->element_type == RNN_STATE_ELEMENT_F32) {
    FUZZ_CHECK (memcmp (converted, v, n * sizeof (gfloat)) == 0,
        "an import into F32 is not its dequantized values");
  } else {
    for (layer = 0; layer < target->n_layers; layer++) {
      for (i = rnn_state_descriptor_layer_offset (target, layer);
           i < rnn_state_descriptor_layer_offset (target, layer + 1); i++)
        check_quantized_value (target, layer, v[i],
            quantized_at (target, converted, i));
    }
  }
  g_free (v);
}

/* After an accepted import: the next invocation starts from it, and its
 * writeback (with a side output in another format) snapshots again. */
static void
check_applied_import (RnnStateSlot *slot, const RnnStateSnapshot *snapshot)
{
  const RnnStateDescriptor *target = rnn_state_slot_get_descriptor (slot);
  gsize n = rnn_state_descriptor_n_values (target);
  gsize history_bytes = (gsize) target->history_size * sizeof (gfloat);
  RnnStateDescriptor side_desc = *target;
  gpointer converted, side;
  gfloat *expected, *hidden, *expected_history, *history;
  GBytes *after;
  RnnStateSnapshot *reparsed;
  GError *error = NULL;

  converted = g_malloc (rnn_state_descriptor_hidden_bytes (target));
  expected = g_new (gfloat, n);
  hidden = g_new (gfloat, n);
  expected_history = g_malloc (history_bytes + 1);
  history = g_malloc (history_bytes + 1);

  FUZZ_CHECK (rnn_state_snapshot_convert (snapshot, target, converted,
                  expected_history, &error),
      "convert refuses a validated snapshot: %s", error->message);
  check_rescale (snapshot, target, converted);
  rnn_state_dequantize (target, converted, expected);

  FUZZ_CHECK (rnn_state_slot_has_pending_import (slot), "no pending import");
  rnn_state_slot_read (slot, hidden, history);
  FUZZ_CHECK (!rnn_state_slot_has_pending_import (slot),
      "the read left the import pending");
  FUZZ_CHECK (memcmp (hidden, expected, n * sizeof (gfloat)) == 0,
      "the read does not return the imported hidden state");
  FUZZ_CHECK (memcmp (history, expected_history, history_bytes) == 0,
      "the read does not return the imported history");

  rnn_state_descriptor_set_element_type (&side_desc,
      target->element_type == RNN_STATE_ELEMENT_S8 ? RNN_STATE_ELEMENT_S16
                                                   : RNN_STATE_ELEMENT_S8,
      1.0f);
  side = g_malloc (rnn_state_descriptor_hidden_bytes (&side_desc));
  rnn_state_slot_writeback (slot, hidden, history, &side_desc, side,
      rnn_state_descriptor_hidden_bytes (&side_desc));

  after = rnn_state_slot_snapshot (slot);
  reparsed = rnn_state_snapshot_parse (g_bytes_get_data (after, NULL),
      g_bytes_get_size (after), &error);
  FUZZ_CHECK (reparsed != NULL, "the slot's snapshot does not parse: %s",
      error->message);
  FUZZ_CHECK (rnn_state_snapshot_validate (reparsed, target, &error),
      "the slot's snapshot does not fit the slot: %s", error->message);
  rnn_state_snapshot_free (reparsed);
  g_bytes_unref (after);

  g_free (side);
  g_free (history);
  g_free (expected_history);
  g_free (hidden);
  g_free (expected);
  g_free (converted);
}

static void
check_import (RnnStateSlot *slot, const RnnStateSnapshot *snapshot,
    const guint8 *data, gsize size)
{
  const RnnStateDescriptor *target = rnn_state_slot_get_descriptor (slot);
  RnnStateCounters before_counters, after_counters;
  GBytes *before, *after;
  GError *error = NULL;
  gboolean expected, accepted;

  expected = snapshot != NULL
      && rnn_state_snapshot_validate (snapshot, target, NULL);
  before = rnn_state_slot_snapshot (slot);
  rnn_state_slot_get_counters (slot, &before_counters);
  accepted = rnn_state_slot_import (slot, data, size, &error);
  FUZZ_CHECK (accepted == expected,
      "the slot %s an import that parse + validate %s",
      accepted ? "accepts" : "refuses", expected ? "accept" : "refuse");
  rnn_state_slot_get_counters (slot, &after_counters);

  if (!accepted) {
    FUZZ_CHECK (error != NULL && error->domain == RNN_STATE_ERROR
            && error->message[0] != '\0',
        "a refused import without an RNN_STATE_ERROR");
    FUZZ_CHECK (!rnn_state_slot_has_pending_import (slot),
        "a refused import is pending");
    FUZZ_CHECK (after_counters.rejected_imports
            == before_counters.rejected_imports + 1,
        "a refused import was not counted");
    after = rnn_state_slot_snapshot (slot);
    FUZZ_CHECK (g_bytes_equal (before, after),
        "a refused import changed the slot");
    g_bytes_unref (after);
    g_error_free (error);
  } else {
    FUZZ_CHECK (error == NULL, "an accepted import set an error");
    check_applied_import (slot, snapshot);
  }
  g_bytes_unref (before);
}

static void
check_bytes (RnnStateSlot **slots, const guint8 *data, gsize size)
{
  RnnStateSnapshot *snapshot;
  FuzzAllocStats stats;
  GError *error = NULL;
  guint t;

  fuzz_alloc_begin ();
  snapshot = rnn_state_snapshot_parse (data, size, &error);
  fuzz_alloc_end (&stats);
  check_parse_allocations (&stats, size);

  if (snapshot == NULL) {
    FUZZ_CHECK (error != NULL && error->domain == RNN_STATE_ERROR
            && error->code == RNN_STATE_ERROR_CORRUPT,
        "a refused parse without an RNN_STATE_ERROR_CORRUPT");
    g_clear_error (&error);
  } else {
    FUZZ_CHECK (error == NULL, "a successful parse set an error");
    check_round_trip (snapshot, data, size);
  }
  for (t = 0; t < FUZZ_SNAPSHOT_N_TARGETS; t++)
    check_import (slots[t], snapshot, data, size);
  rnn_state_snapshot_free (snapshot);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  RnnStateSlot *slots[FUZZ_SNAPSHOT_N_TARGETS];
  RnnStateDescriptor desc;
  guint8 *resealed;
  guint t;

  for (t = 0; t < FUZZ_SNAPSHOT_N_TARGETS; t++) {
    fuzz_snapshot_target (t, &desc);
    slots[t] = rnn_state_slot_new (&desc, NULL);
    g_assert (slots[t] != NULL);
  }

  check_bytes (slots, data, size);
  if (size >= 4) {
    resealed = g_memdup2 (data, size);
    fuzz_reseal_crc (resealed, size);
    if (memcmp (resealed, data, size) != 0)
      check_bytes (slots, resealed, size);
    g_free (resealed);
  }

  for (t = 0; t < FUZZ_SNAPSHOT_N_TARGETS; t++)
    rnn_state_slot_free (slots[t]);
  return 0;
}

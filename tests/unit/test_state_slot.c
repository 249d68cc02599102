/* rnndenoise — Check suite for state/rnn_state_slot: persistence, address,
 * fan-out, completion, counters
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"

#include "state/rnn_state_error.h"
#include "state/rnn_state_faults.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_slot.h"
#include "state/rnn_state_snapshot.h"

#define N_VALUES (2 * (3 + 5))
#define HISTORY 7

static RnnStateSlot *
new_slot (RnnStateElementType type)
{
  const guint32 hidden[2] = { 3, 5 };
  RnnStateDescriptor desc;
  RnnStateSlot *slot;

  rnn_state_descriptor_init (&desc, 42, RNN_STATE_CELL_GRU, 2, 2, hidden,
      HISTORY);
  rnn_state_descriptor_set_element_type (&desc, type, 1.0f);
  slot = rnn_state_slot_new (&desc, NULL);
  ck_assert_ptr_nonnull (slot);
  return slot;
}

static void
fill (gfloat *v, gsize n, gfloat base)
{
  gsize i;

  for (i = 0; i < n; i++)
    v[i] = base + 0.01f * i;
}

START_TEST (test_new_is_zero)
{
  RnnStateSlot *slot = new_slot (RNN_STATE_ELEMENT_F32);
  gfloat hidden[N_VALUES], history[HISTORY];
  guint i;

  memset (hidden, 0xff, sizeof (hidden));
  memset (history, 0xff, sizeof (history));
  rnn_state_slot_read (slot, hidden, history);
  for (i = 0; i < N_VALUES; i++)
    ck_assert_float_eq (hidden[i], 0.0f);
  for (i = 0; i < HISTORY; i++)
    ck_assert_float_eq (history[i], 0.0f);
  rnn_state_slot_free (slot);
}
END_TEST

START_TEST (test_invalid_descriptor_refused)
{
  RnnStateDescriptor desc;
  const guint32 hidden[1] = { 0 };
  GError *error = NULL;

  rnn_state_descriptor_init (&desc, 1, RNN_STATE_CELL_TEACH, 1, 1, hidden, 0);
  ck_assert_ptr_null (rnn_state_slot_new (&desc, &error));
  ck_assert (g_error_matches (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID));
  g_clear_error (&error);
}
END_TEST

START_TEST (test_writeback_is_next_read)
{
  RnnStateSlot *slot = new_slot (RNN_STATE_ELEMENT_F32);
  gfloat final[N_VALUES], hist[HISTORY], got[N_VALUES], got_hist[HISTORY];

  fill (final, N_VALUES, 0.5f);
  fill (hist, HISTORY, -3.0f);
  rnn_state_slot_read (slot, got, got_hist);
  rnn_state_slot_writeback (slot, final, hist, NULL, NULL, 0);
  rnn_state_slot_read (slot, got, got_hist);
  ck_assert (memcmp (final, got, sizeof (final)) == 0);
  ck_assert (memcmp (hist, got_hist, sizeof (hist)) == 0);
  rnn_state_slot_writeback (slot, got, got_hist, NULL, NULL, 0);
  rnn_state_slot_free (slot);
}
END_TEST

/* An import accepted by one slot and not applied yet moves to the slot that
 * replaces it, and only when the layouts match: it has one owner. */
START_TEST (test_move_pending_import)
{
  const guint32 hidden[2] = { 3, 5 };
  RnnStateSlot *source = new_slot (RNN_STATE_ELEMENT_F32);
  RnnStateSlot *from = new_slot (RNN_STATE_ELEMENT_F32);
  RnnStateSlot *to = new_slot (RNN_STATE_ELEMENT_F32);
  gfloat final[N_VALUES], hist[HISTORY], got[N_VALUES], got_hist[HISTORY];
  RnnStateDescriptor desc;
  RnnStateSlot *other;
  GError *error = NULL;
  GBytes *bytes;

  fill (final, N_VALUES, 0.25f);
  fill (hist, HISTORY, 2.0f);
  rnn_state_slot_read (source, got, got_hist);
  rnn_state_slot_writeback (source, final, hist, NULL, NULL, 0);
  bytes = rnn_state_slot_snapshot (source);

  /* Nothing pending: nothing moves, and that is no error. */
  ck_assert (rnn_state_slot_move_pending_import (from, to, NULL));
  ck_assert (!rnn_state_slot_has_pending_import (to));

  ck_assert (rnn_state_slot_import (from, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  rnn_state_descriptor_init (&desc, 42, RNN_STATE_CELL_GRU, 2, 2, hidden,
      HISTORY + 1);
  other = rnn_state_slot_new (&desc, NULL);
  ck_assert (!rnn_state_slot_move_pending_import (from, other, &error));
  ck_assert (
      g_error_matches (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH));
  g_clear_error (&error);
  ck_assert (!rnn_state_slot_has_pending_import (other));
  ck_assert (rnn_state_slot_has_pending_import (from));

  ck_assert (rnn_state_slot_move_pending_import (from, to, NULL));
  ck_assert (!rnn_state_slot_has_pending_import (from));
  ck_assert (rnn_state_slot_has_pending_import (to));
  rnn_state_slot_read (to, got, got_hist);
  ck_assert (memcmp (final, got, sizeof (final)) == 0);
  ck_assert (memcmp (hist, got_hist, sizeof (hist)) == 0);
  rnn_state_slot_writeback (to, got, got_hist, NULL, NULL, 0);
  rnn_state_slot_read (from, got, got_hist);
  ck_assert_float_eq (got[0], 0.0f);
  rnn_state_slot_writeback (from, got, got_hist, NULL, NULL, 0);

  g_bytes_unref (bytes);
  rnn_state_slot_free (other);
  rnn_state_slot_free (source);
  rnn_state_slot_free (from);
  rnn_state_slot_free (to);
}
END_TEST

/* The storage the writeback targets is the storage the next read takes from:
 * writing through a side channel into that address shows up in the read, and
 * the address never moves. */
START_TEST (test_address_stable)
{
  RnnStateSlot *slot = new_slot (RNN_STATE_ELEMENT_F32);
  gconstpointer storage = rnn_state_slot_get_storage (slot);
  gfloat state[N_VALUES], probe[N_VALUES];
  guint k;

  memset (state, 0, sizeof (state));
  for (k = 0; k < 1000; k++) {
    rnn_state_slot_read (slot, state, NULL);
    state[0] += 1.0f;
    rnn_state_slot_writeback (slot, state, NULL, NULL, NULL, 0);
    ck_assert_ptr_eq (rnn_state_slot_get_storage (slot), storage);
    /* The bytes at the storage address are the written-back state. */
    ck_assert (memcmp (storage, state, sizeof (state)) == 0);
  }
  rnn_state_slot_peek (slot, probe, NULL, NULL);
  ck_assert_float_eq (probe[0], 1000.0f);
  rnn_state_slot_free (slot);
}
END_TEST

START_TEST (test_reset_restores_initial)
{
  RnnStateSlot *slot = new_slot (RNN_STATE_ELEMENT_S8);
  gfloat init[N_VALUES], state[N_VALUES], got[N_VALUES];
  RnnStateCounters counters;
  guint i;

  fill (init, N_VALUES, 0.25f);
  rnn_state_slot_set_initial_state (slot, init, NULL);
  rnn_state_slot_read (slot, state, NULL);
  /* Setting the initial state does not reset: still zero. */
  for (i = 0; i < N_VALUES; i++)
    ck_assert_float_eq (state[i], 0.0f);
  fill (state, N_VALUES, -0.5f);
  rnn_state_slot_writeback (slot, state, NULL, NULL, NULL, 0);
  rnn_state_slot_reset (slot, TRUE);
  rnn_state_slot_read (slot, got, NULL);
  for (i = 0; i < N_VALUES; i++)
    ck_assert_float_le (fabsf (got[i] - init[i]), 0.5f / 127.0f);
  rnn_state_slot_writeback (slot, got, NULL, NULL, NULL, 0);
  rnn_state_slot_get_counters (slot, &counters);
  ck_assert_uint_eq (counters.resets, 1);
  ck_assert_uint_eq (counters.invocations, 2);
  rnn_state_slot_free (slot);
}
END_TEST

/* A reset that arrives between read and writeback (another thread) must not
 * be lost: it applies once the writeback completes. */
START_TEST (test_reset_during_invocation_applies_after)
{
  RnnStateSlot *slot = new_slot (RNN_STATE_ELEMENT_F32);
  gfloat state[N_VALUES], got[N_VALUES];
  guint i;

  rnn_state_slot_read (slot, state, NULL);
  rnn_state_slot_reset (slot, TRUE);
  fill (state, N_VALUES, 1.0f);
  rnn_state_slot_writeback (slot, state, NULL, NULL, NULL, 0);
  rnn_state_slot_read (slot, got, NULL);
  for (i = 0; i < N_VALUES; i++)
    ck_assert_float_eq (got[i], 0.0f);
  rnn_state_slot_writeback (slot, got, NULL, NULL, NULL, 0);
  rnn_state_slot_free (slot);
}
END_TEST

/* Table: slot type x side type. The side output equals final_state bit-exactly
 * for F32 and within one quantisation step otherwise, whatever the slot's
 * type, and changing the slot afterwards never changes it. */
static const struct
{
  RnnStateElementType slot_type;
  RnnStateElementType side_type;
} fanout_cases[] = {
  { RNN_STATE_ELEMENT_F32, RNN_STATE_ELEMENT_F32 },
  { RNN_STATE_ELEMENT_S8, RNN_STATE_ELEMENT_F32 },
  { RNN_STATE_ELEMENT_S16, RNN_STATE_ELEMENT_F32 },
  { RNN_STATE_ELEMENT_F32, RNN_STATE_ELEMENT_S16 },
  { RNN_STATE_ELEMENT_F32, RNN_STATE_ELEMENT_S8 },
  { RNN_STATE_ELEMENT_S8, RNN_STATE_ELEMENT_S16 },
  { RNN_STATE_ELEMENT_S16, RNN_STATE_ELEMENT_S8 },
};

START_TEST (test_fanout)
{
  RnnStateSlot *slot = new_slot (fanout_cases[_i].slot_type);
  RnnStateDescriptor side_desc = *rnn_state_slot_get_descriptor (slot);
  gfloat final[N_VALUES], other[N_VALUES], side_values[N_VALUES];
  guint8 side[N_VALUES * 4], side_copy[N_VALUES * 4];
  gsize side_size;
  RnnStateCounters counters;
  guint i, l;

  rnn_state_descriptor_set_element_type (&side_desc, fanout_cases[_i].side_type,
      1.0f);
  side_size = rnn_state_descriptor_hidden_bytes (&side_desc);
  for (i = 0; i < N_VALUES; i++)
    final[i] = 0.9f * sinf (1.3f * i + 0.1f);

  rnn_state_slot_read (slot, other, NULL);
  rnn_state_slot_writeback (slot, final, NULL, &side_desc, side, side_size);
  memcpy (side_copy, side, side_size);

  rnn_state_dequantize (&side_desc, side, side_values);
  for (l = 0; l < side_desc.n_layers; l++) {
    gsize b = rnn_state_descriptor_layer_offset (&side_desc, l);
    gsize e = rnn_state_descriptor_layer_offset (&side_desc, l + 1);
    gfloat step = rnn_state_quant_step (&side_desc, l);

    for (i = b; i < e; i++) {
      if (side_desc.element_type == RNN_STATE_ELEMENT_F32)
        ck_assert (memcmp (&final[i], &side_values[i], 4) == 0);
      else
        ck_assert_float_le (fabsf (final[i] - side_values[i]), step);
    }
  }

  /* Modify the slot right after: the side output must not move. */
  fill (other, N_VALUES, -0.7f);
  rnn_state_slot_read (slot, final, NULL);
  rnn_state_slot_writeback (slot, other, NULL, NULL, NULL, 0);
  rnn_state_slot_reset (slot, TRUE);
  ck_assert (memcmp (side_copy, side, side_size) == 0);

  rnn_state_slot_get_counters (slot, &counters);
  ck_assert_uint_eq (counters.invocations, 2);
  ck_assert_uint_eq (counters.bytes_side_copied, side_size);
  /* 2 reads + 2 writebacks + 1 side output. */
  ck_assert_uint_eq (counters.copies, 5);
  ck_assert_uint_eq (counters.bytes_written_back,
      2
          * rnn_state_descriptor_hidden_bytes (
              rnn_state_slot_get_descriptor (slot)));
  rnn_state_slot_free (slot);
}
END_TEST

/* Completion under an injected writeback delay: the history section is set to
 * the invocation index and the hidden section to a function of it, so a
 * snapshot that mixed two invocations is caught. */
typedef struct
{
  RnnStateSlot *slot;
  gint stop;
  guint snapshots;
  guint torn;
} SnapshotThread;

static gpointer
snapshot_loop (gpointer data)
{
  SnapshotThread *t = data;

  while (!g_atomic_int_get (&t->stop)) {
    GBytes *bytes = rnn_state_slot_snapshot (t->slot);
    gsize size;
    gconstpointer raw = g_bytes_get_data (bytes, &size);
    RnnStateSnapshot *snap = rnn_state_snapshot_parse (raw, size, NULL);
    const gfloat *hidden, *history;
    guint i;

    ck_assert_ptr_nonnull (snap);
    hidden = rnn_state_snapshot_get_hidden (snap);
    history = rnn_state_snapshot_get_history (snap);
    for (i = 0; i < N_VALUES; i++)
      if (hidden[i] != history[0] * 2.0f + i)
        t->torn++;
    for (i = 1; i < HISTORY; i++)
      if (history[i] != history[0])
        t->torn++;
    t->snapshots++;
    rnn_state_snapshot_free (snap);
    g_bytes_unref (bytes);
  }
  return NULL;
}

START_TEST (test_completion_under_delay)
{
  RnnStateFaults faults = { .writeback_delay_us = 200 };
  RnnStateFaults none = { 0 };
  RnnStateSlot *slot = new_slot (RNN_STATE_ELEMENT_F32);
  SnapshotThread t = { slot, 0, 0, 0 };
  gfloat hidden[N_VALUES], history[HISTORY], init_h[N_VALUES];
  GThread *thread;
  guint k, i;

  /* Make the zero state satisfy the invariant too: index 0. */
  for (i = 0; i < N_VALUES; i++)
    init_h[i] = (gfloat) i;
  rnn_state_slot_set_initial_state (slot, init_h, NULL);
  rnn_state_slot_reset (slot, TRUE);

  rnn_state_faults_override (&faults);
  thread = g_thread_new ("snapshots", snapshot_loop, &t);
  for (k = 1; k <= 300; k++) {
    rnn_state_slot_read (slot, hidden, history);
    ck_assert_float_eq (history[0], (gfloat) (k - 1));
    for (i = 0; i < N_VALUES; i++)
      hidden[i] = k * 2.0f + i;
    for (i = 0; i < HISTORY; i++)
      history[i] = (gfloat) k;
    rnn_state_slot_writeback (slot, hidden, history, NULL, NULL, 0);
  }
  g_atomic_int_set (&t.stop, 1);
  g_thread_join (thread);
  rnn_state_faults_override (&none);

  ck_assert_uint_gt (t.snapshots, 0);
  ck_assert_uint_eq (t.torn, 0);
  rnn_state_slot_free (slot);
}
END_TEST

START_TEST (test_faults_parse)
{
  RnnStateFaults f;
  GError *error = NULL;

  ck_assert (rnn_state_faults_parse ("writeback-delay-us=2000", &f, NULL));
  ck_assert_uint_eq (f.writeback_delay_us, 2000);
  ck_assert (rnn_state_faults_parse (NULL, &f, NULL));
  ck_assert_uint_eq (f.writeback_delay_us, 0);
  ck_assert (!rnn_state_faults_parse ("writeback-delay-us=abc", &f, &error));
  g_clear_error (&error);
  ck_assert (!rnn_state_faults_parse ("bogus=1", &f, &error));
  ck_assert (strstr (error->message, "bogus") != NULL);
  g_clear_error (&error);
  ck_assert (!rnn_state_faults_parse ("writeback-delay-us", &f, &error));
  g_clear_error (&error);
}
END_TEST

static Suite *
state_slot_suite (void)
{
  Suite *s = suite_create ("state-slot");
  TCase *tc;

  tc = tcase_create ("lifecycle");
  tcase_add_test (tc, test_new_is_zero);
  tcase_add_test (tc, test_invalid_descriptor_refused);
  tcase_add_test (tc, test_reset_restores_initial);
  tcase_add_test (tc, test_reset_during_invocation_applies_after);
  suite_add_tcase (s, tc);

  tc = tcase_create ("address");
  tcase_add_test (tc, test_writeback_is_next_read);
  tcase_add_test (tc, test_address_stable);
  suite_add_tcase (s, tc);

  tc = tcase_create ("import");
  tcase_add_test (tc, test_move_pending_import);
  suite_add_tcase (s, tc);

  tc = tcase_create ("fanout");
  tcase_add_loop_test (tc, test_fanout, 0, G_N_ELEMENTS (fanout_cases));
  suite_add_tcase (s, tc);

  tc = tcase_create ("completion");
  tcase_add_test (tc, test_faults_parse);
  tcase_add_test (tc, test_completion_under_delay);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (state_slot_suite);

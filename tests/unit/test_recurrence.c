/* rnndenoise — Check suite for dsp/dsp_recurrence with the teaching cell:
 * two-invocation persistence, reset, frames per invocation, address
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"

#include "dsp/dsp_cell.h"
#include "dsp/dsp_error.h"
#include "dsp/dsp_recurrence.h"
#include "state/rnn_state_slot.h"

#define BATCH 2
#define HIDDEN 4
#define N (BATCH * HIDDEN)
#define MAX_FRAMES 8

typedef struct
{
  DspCell *cell;
  RnnStateSlot *slot;
  DspRecurrence *rec;
} Teach;

static void
teach_init (Teach *t)
{
  const guint32 hidden[1] = { HIDDEN };
  RnnStateDescriptor desc;

  rnn_state_descriptor_init (&desc, 7, RNN_STATE_CELL_TEACH, BATCH, 1, hidden,
      0);
  t->cell = dsp_cell_teach_new (HIDDEN);
  t->slot = rnn_state_slot_new (&desc, NULL);
  t->rec = dsp_recurrence_new (&t->cell, 1, t->slot, NULL);
  ck_assert_ptr_nonnull (t->rec);
}

static void
teach_clear (Teach *t)
{
  dsp_recurrence_free (t->rec);
  rnn_state_slot_free (t->slot);
  dsp_cell_free (t->cell);
}

/* Runs one invocation of n_frames frames of x = 1; returns h[0] after it,
 * from the side output (fan-out) and checks the slot agrees. */
static gfloat
invoke (Teach *t, guint n_frames)
{
  gfloat input[MAX_FRAMES * N], output[MAX_FRAMES * N], side[N], slot_h[N];
  const RnnStateDescriptor *desc = rnn_state_slot_get_descriptor (t->slot);
  guint i;

  for (i = 0; i < n_frames * N; i++)
    input[i] = 1.0f;
  ck_assert_uint_eq (dsp_recurrence_run (t->rec, input, output, n_frames, desc,
                         side, sizeof (side)),
      n_frames);
  rnn_state_slot_peek (t->slot, slot_h, NULL, NULL);
  ck_assert (memcmp (side, slot_h, sizeof (side)) == 0);
  for (i = 1; i < N; i++)
    ck_assert_float_eq (side[i], side[0]);
  if (n_frames > 0)
    ck_assert_float_eq (output[(n_frames - 1) * N], side[0]);
  return side[0];
}

/* Table: invocations given as frame counts, with 0 meaning a reset; the
 * expected state after each one. Re-initialisation would restart at 1. */
static const struct
{
  const gchar *name;
  guint steps[6];
  gfloat expected[6];
  guint n_steps;
} persistence_cases[] = {
  { "1+1", { 1, 1 }, { 1, 3 }, 2 },
  { "1+reset+1", { 1, 0, 1 }, { 1, 0, 1 }, 3 },
  { "3+2", { 3, 2 }, { 7, 31 }, 2 },
  { "2+2+2", { 2, 2, 2 }, { 3, 15, 63 }, 3 },
  { "4+reset+1+1", { 4, 0, 1, 1 }, { 15, 0, 1, 3 }, 4 },
};

START_TEST (test_persistence)
{
  Teach t;
  guint s;

  teach_init (&t);
  for (s = 0; s < persistence_cases[_i].n_steps; s++) {
    guint frames = persistence_cases[_i].steps[s];
    gfloat h;

    if (frames == 0) {
      gfloat probe[N];
      rnn_state_slot_reset (t.slot, TRUE);
      rnn_state_slot_peek (t.slot, probe, NULL, NULL);
      h = probe[0];
    } else {
      h = invoke (&t, frames);
    }
    ck_assert_msg (h == persistence_cases[_i].expected[s],
        "%s: step %u gave %g, expected %g", persistence_cases[_i].name, s, h,
        persistence_cases[_i].expected[s]);
  }
  teach_clear (&t);
}
END_TEST

START_TEST (test_zero_frames_touch_nothing)
{
  Teach t;
  RnnStateCounters counters;
  guint64 generation;

  teach_init (&t);
  ck_assert_float_eq (invoke (&t, 1), 1.0f);
  generation = rnn_state_slot_get_generation (t.slot);
  ck_assert_uint_eq (dsp_recurrence_run (t.rec, NULL, NULL, 0, NULL, NULL, 0),
      0);
  ck_assert_uint_eq (rnn_state_slot_get_generation (t.slot), generation);
  rnn_state_slot_get_counters (t.slot, &counters);
  ck_assert_uint_eq (counters.invocations, 1);
  ck_assert_float_eq (invoke (&t, 1), 3.0f);
  teach_clear (&t);
}
END_TEST

/* The writeback must land where the next invocation reads: after x = 1 on
 * h = 0 gives h = 1, x = -1 keeps h = 2h - 1 = 1 only if every invocation
 * starts from the previous one's state (a fresh zero state would give -1).
 * The storage never moves in 1,000 invocations. */
START_TEST (test_address_after_1000_invocations)
{
  Teach t;
  gconstpointer storage;
  gfloat input[N], side[N];
  guint k, i;

  teach_init (&t);
  storage = rnn_state_slot_get_storage (t.slot);
  for (k = 0; k < 1000; k++) {
    for (i = 0; i < N; i++)
      input[i] = k == 0 ? 1.0f : -1.0f;
    dsp_recurrence_run (t.rec, input, NULL, 1, NULL, NULL, 0);
    ck_assert_ptr_eq (rnn_state_slot_get_storage (t.slot), storage);
    memcpy (side, storage, sizeof (side));
    ck_assert_float_eq (side[0], 1.0f);
  }
  teach_clear (&t);
}
END_TEST

/* The state lives in the slot, not in the driver: a second driver on the
 * same slot continues where the first stopped. */
START_TEST (test_state_lives_in_slot)
{
  Teach t;
  DspRecurrence *other;
  gfloat input[N], side[N];
  guint i;

  teach_init (&t);
  ck_assert_float_eq (invoke (&t, 2), 3.0f);
  other = dsp_recurrence_new (&t.cell, 1, t.slot, NULL);
  for (i = 0; i < N; i++)
    input[i] = 1.0f;
  dsp_recurrence_run (other, input, NULL, 1,
      rnn_state_slot_get_descriptor (t.slot), side, sizeof (side));
  ck_assert_float_eq (side[0], 7.0f);
  dsp_recurrence_free (other);
  teach_clear (&t);
}
END_TEST

START_TEST (test_cells_must_fit_slot)
{
  const guint32 hidden[2] = { HIDDEN, HIDDEN };
  RnnStateDescriptor desc;
  RnnStateSlot *slot;
  DspCell *cells[2];
  GError *error = NULL;

  rnn_state_descriptor_init (&desc, 7, RNN_STATE_CELL_TEACH, BATCH, 2, hidden,
      0);
  slot = rnn_state_slot_new (&desc, NULL);
  cells[0] = dsp_cell_teach_new (HIDDEN);
  cells[1] = dsp_cell_teach_new (HIDDEN + 1);
  ck_assert_ptr_null (dsp_recurrence_new (cells, 1, slot, &error));
  ck_assert_str_eq (error->message, "1 cells, the state has 2 layers");
  g_clear_error (&error);
  ck_assert_ptr_null (dsp_recurrence_new (cells, 2, slot, &error));
  ck_assert (g_error_matches (error, DSP_ERROR, DSP_ERROR_MISMATCH));
  ck_assert_str_eq (error->message,
      "cell 1 has hidden size 5, the state layer has 4");
  g_clear_error (&error);
  dsp_cell_free (cells[0]);
  dsp_cell_free (cells[1]);
  rnn_state_slot_free (slot);
}
END_TEST

/* Two stacked teaching layers: layer 1 takes layer 0's state as input. */
START_TEST (test_two_layers)
{
  const guint32 hidden[2] = { HIDDEN, HIDDEN };
  RnnStateDescriptor desc;
  RnnStateSlot *slot;
  DspCell *cells[2];
  DspRecurrence *rec;
  gfloat input[N], side[2 * N];
  guint i;

  rnn_state_descriptor_init (&desc, 7, RNN_STATE_CELL_TEACH, BATCH, 2, hidden,
      0);
  slot = rnn_state_slot_new (&desc, NULL);
  cells[0] = dsp_cell_teach_new (HIDDEN);
  cells[1] = dsp_cell_teach_new (HIDDEN);
  rec = dsp_recurrence_new (cells, 2, slot, NULL);
  for (i = 0; i < N; i++)
    input[i] = 1.0f;
  /* Frame 1: h0 = 1, h1 = 1. Frame 2: h0 = 3, h1 = 2 + 3 = 5. */
  dsp_recurrence_run (rec, input, NULL, 1, &desc, side, sizeof (side));
  ck_assert_float_eq (side[0], 1.0f);
  ck_assert_float_eq (side[N], 1.0f);
  dsp_recurrence_run (rec, input, NULL, 1, &desc, side, sizeof (side));
  ck_assert_float_eq (side[0], 3.0f);
  ck_assert_float_eq (side[N], 5.0f);
  dsp_recurrence_free (rec);
  dsp_cell_free (cells[0]);
  dsp_cell_free (cells[1]);
  rnn_state_slot_free (slot);
}
END_TEST

static Suite *
recurrence_suite (void)
{
  Suite *s = suite_create ("recurrence");
  TCase *tc;

  tc = tcase_create ("persistence");
  tcase_add_loop_test (tc, test_persistence, 0,
      G_N_ELEMENTS (persistence_cases));
  tcase_add_test (tc, test_zero_frames_touch_nothing);
  tcase_add_test (tc, test_state_lives_in_slot);
  tcase_add_test (tc, test_two_layers);
  suite_add_tcase (s, tc);

  tc = tcase_create ("address");
  tcase_add_test (tc, test_address_after_1000_invocations);
  suite_add_tcase (s, tc);

  tc = tcase_create ("errors");
  tcase_add_test (tc, test_cells_must_fit_slot);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (recurrence_suite);

/* rnndenoise — Check suite for state/rnn_state_snapshot and slot imports:
 * serialize, validate, rescale, corrupt input
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"

#include "state/rnn_state_error.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_slot.h"
#include "state/rnn_state_snapshot.h"

#define N_VALUES (2 * (3 + 5))
#define HISTORY 7

static void
make_desc (RnnStateDescriptor *desc)
{
  const guint32 hidden[2] = { 3, 5 };

  rnn_state_descriptor_init (desc, 0xfeedf00d12345678ull, RNN_STATE_CELL_GRU, 2,
      2, hidden, HISTORY);
}

/* A slot in a known, non-zero state after one invocation. */
static RnnStateSlot *
new_busy_slot (const RnnStateDescriptor *desc)
{
  RnnStateSlot *slot = rnn_state_slot_new (desc, NULL);
  gfloat hidden[N_VALUES], history[HISTORY];
  guint i;

  ck_assert_ptr_nonnull (slot);
  rnn_state_slot_read (slot, hidden, history);
  for (i = 0; i < N_VALUES; i++)
    hidden[i] = 0.8f * cosf (0.7f * i);
  for (i = 0; i < HISTORY; i++)
    history[i] = 100.0f + i;
  rnn_state_slot_writeback (slot, hidden, history, NULL, NULL, 0);
  return slot;
}

static GBytes *
snapshot_of (const RnnStateDescriptor *desc)
{
  RnnStateSlot *slot = new_busy_slot (desc);
  GBytes *bytes = rnn_state_slot_snapshot (slot);

  rnn_state_slot_free (slot);
  return bytes;
}

static gboolean
bytes_equal (GBytes *a, GBytes *b)
{
  return g_bytes_compare (a, b) == 0;
}

START_TEST (test_round_trip_bit_exact)
{
  RnnStateDescriptor desc;
  RnnStateSlot *src, *dst;
  GBytes *bytes, *again;
  gfloat h_src[N_VALUES], h_dst[N_VALUES], hist_src[HISTORY], hist_dst[HISTORY];

  make_desc (&desc);
  src = new_busy_slot (&desc);
  dst = rnn_state_slot_new (&desc, NULL);
  bytes = rnn_state_slot_snapshot (src);

  ck_assert (rnn_state_slot_import (dst, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  ck_assert (rnn_state_slot_has_pending_import (dst));
  rnn_state_slot_read (src, h_src, hist_src);
  rnn_state_slot_read (dst, h_dst, hist_dst);
  ck_assert (!rnn_state_slot_has_pending_import (dst));
  ck_assert (memcmp (h_src, h_dst, sizeof (h_src)) == 0);
  ck_assert (memcmp (hist_src, hist_dst, sizeof (hist_src)) == 0);
  rnn_state_slot_writeback (src, h_src, hist_src, NULL, NULL, 0);
  rnn_state_slot_writeback (dst, h_dst, hist_dst, NULL, NULL, 0);

  /* Same content, so the same hidden and history bytes again. */
  again = rnn_state_slot_snapshot (dst);
  ck_assert_uint_eq (g_bytes_get_size (again), g_bytes_get_size (bytes));
  g_bytes_unref (again);
  g_bytes_unref (bytes);
  rnn_state_slot_free (src);
  rnn_state_slot_free (dst);
}
END_TEST

/* An import before the stream starts survives the stream-start reset (which
 * keeps pending imports) but not an application reset (which drops them). */
START_TEST (test_import_survives_stream_reset)
{
  RnnStateDescriptor desc;
  RnnStateSlot *dst;
  GBytes *bytes;
  gfloat h[N_VALUES];

  make_desc (&desc);
  bytes = snapshot_of (&desc);
  dst = rnn_state_slot_new (&desc, NULL);
  ck_assert (rnn_state_slot_import (dst, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  rnn_state_slot_reset (dst, FALSE);
  rnn_state_slot_read (dst, h, NULL);
  ck_assert_float_eq_tol (h[1], 0.8f * cosf (0.7f), 1e-7f);
  rnn_state_slot_writeback (dst, h, NULL, NULL, NULL, 0);

  ck_assert (rnn_state_slot_import (dst, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  rnn_state_slot_reset (dst, TRUE);
  rnn_state_slot_read (dst, h, NULL);
  ck_assert_float_eq (h[1], 0.0f);
  rnn_state_slot_writeback (dst, h, NULL, NULL, NULL, 0);
  g_bytes_unref (bytes);
  rnn_state_slot_free (dst);
}
END_TEST

/* One row per descriptor field of contract point 8: the snapshot differs in
 * that field only, and the error must name it with both values. */
static const struct
{
  gint code;
  const gchar *message;
} mismatch_cases[] = {
  { RNN_STATE_ERROR_CORRUPT, "format version 2, this library reads version 1" },
  { RNN_STATE_ERROR_MISMATCH,
      "model id 00000000deadbeef, stream expects feedf00d12345678" },
  { RNN_STATE_ERROR_MISMATCH, "cell kind teach, stream expects gru" },
  { RNN_STATE_ERROR_UNSUPPORTED,
      "direction bidirectional, stream expects forward: a bidirectional "
      "state cannot seed a streaming recurrence" },
  { RNN_STATE_ERROR_MISMATCH, "batch 1, stream expects 2" },
  { RNN_STATE_ERROR_MISMATCH, "layer count 3, stream expects 2" },
  { RNN_STATE_ERROR_MISMATCH, "hidden size of layer 1 is 6, stream expects 5" },
  { RNN_STATE_ERROR_MISMATCH, "DSP history size 8, stream expects 7" },
};

static void
change_field (RnnStateDescriptor *desc, guint i)
{
  switch (i) {
    case 0:
      desc->format_version = 2;
      break;
    case 1:
      desc->model_id = 0xdeadbeef;
      break;
    case 2:
      desc->cell = RNN_STATE_CELL_TEACH;
      break;
    case 3:
      desc->direction = RNN_STATE_DIRECTION_BIDIRECTIONAL;
      break;
    case 4:
      desc->batch = 1;
      break;
    case 5:
      desc->n_layers = 3;
      desc->hidden[2] = 4;
      break;
    case 6:
      desc->hidden[1] = 6;
      break;
    case 7:
      desc->history_size = 8;
      break;
    default:
      g_assert_not_reached ();
  }
}

/* Serializes a snapshot for a descriptor the slot API would refuse to build
 * (another version), with zero values. */
static GBytes *
raw_snapshot_of (const RnnStateDescriptor *desc)
{
  gsize n = rnn_state_descriptor_n_values (desc);
  gpointer hidden = g_malloc0 (rnn_state_descriptor_hidden_bytes (desc));
  gfloat *history = g_new0 (gfloat, desc->history_size + 1);
  GBytes *bytes;

  (void) n;
  bytes = rnn_state_snapshot_serialize (desc, 1, hidden, history);
  g_free (hidden);
  g_free (history);
  return bytes;
}

START_TEST (test_import_mismatch)
{
  RnnStateDescriptor desc, other;
  RnnStateSlot *slot;
  RnnStateCounters counters;
  GBytes *before, *after, *bad;
  GError *error = NULL;

  make_desc (&desc);
  slot = new_busy_slot (&desc);
  other = desc;
  change_field (&other, _i);
  bad = raw_snapshot_of (&other);
  before = rnn_state_slot_snapshot (slot);

  ck_assert (!rnn_state_slot_import (slot, g_bytes_get_data (bad, NULL),
      g_bytes_get_size (bad), &error));
  ck_assert_ptr_nonnull (error);
  ck_assert (error->domain == RNN_STATE_ERROR);
  ck_assert_int_eq (error->code, mismatch_cases[_i].code);
  ck_assert_str_eq (error->message, mismatch_cases[_i].message);
  g_clear_error (&error);

  ck_assert (!rnn_state_slot_has_pending_import (slot));
  after = rnn_state_slot_snapshot (slot);
  ck_assert (bytes_equal (before, after));
  rnn_state_slot_get_counters (slot, &counters);
  ck_assert_uint_eq (counters.rejected_imports, 1);
  ck_assert_uint_eq (counters.imports, 0);

  g_bytes_unref (bad);
  g_bytes_unref (before);
  g_bytes_unref (after);
  rnn_state_slot_free (slot);
}
END_TEST

/* Same byte size, another layout: refused by field, never by size. */
START_TEST (test_equal_size_other_layout)
{
  RnnStateDescriptor desc, other;
  const guint32 swapped[2] = { 5, 3 };
  RnnStateSlot *slot;
  GBytes *bad;
  GError *error = NULL;

  make_desc (&desc);
  rnn_state_descriptor_init (&other, desc.model_id, RNN_STATE_CELL_GRU, 2, 2,
      swapped, HISTORY);
  ck_assert_uint_eq (rnn_state_descriptor_hidden_bytes (&desc),
      rnn_state_descriptor_hidden_bytes (&other));
  slot = rnn_state_slot_new (&desc, NULL);
  bad = raw_snapshot_of (&other);
  ck_assert (!rnn_state_slot_import (slot, g_bytes_get_data (bad, NULL),
      g_bytes_get_size (bad), &error));
  ck_assert_str_eq (error->message,
      "hidden size of layer 0 is 5, stream expects 3");
  g_clear_error (&error);
  g_bytes_unref (bad);

  /* F32 state of 16 values vs S16 state of 32 values: same bytes too. */
  {
    const guint32 wide[2] = { 6, 10 };
    rnn_state_descriptor_init (&other, desc.model_id, RNN_STATE_CELL_GRU, 2, 2,
        wide, HISTORY);
    rnn_state_descriptor_set_element_type (&other, RNN_STATE_ELEMENT_S16, 1.0f);
    ck_assert_uint_eq (rnn_state_descriptor_hidden_bytes (&desc),
        rnn_state_descriptor_hidden_bytes (&other));
    bad = raw_snapshot_of (&other);
    ck_assert (!rnn_state_slot_import (slot, g_bytes_get_data (bad, NULL),
        g_bytes_get_size (bad), &error));
    ck_assert_str_eq (error->message,
        "hidden size of layer 0 is 6, stream expects 3");
    g_clear_error (&error);
    g_bytes_unref (bad);
  }
  rnn_state_slot_free (slot);
}
END_TEST

/* Rescaling between element types: the documented bound is half a step of
 * the source plus half a step of the target. */
static const RnnStateElementType rescale_types[] = {
  RNN_STATE_ELEMENT_F32,
  RNN_STATE_ELEMENT_S16,
  RNN_STATE_ELEMENT_S8,
};

START_TEST (test_rescale_round_trip)
{
  RnnStateElementType from = rescale_types[_i / 3];
  RnnStateElementType to = rescale_types[_i % 3];
  RnnStateDescriptor src_desc, dst_desc;
  RnnStateSlot *src, *dst;
  GBytes *bytes;
  gfloat truth[N_VALUES], got[N_VALUES];
  guint i, l;

  make_desc (&src_desc);
  rnn_state_descriptor_set_element_type (&src_desc, from, 1.0f);
  make_desc (&dst_desc);
  rnn_state_descriptor_set_element_type (&dst_desc, to, 1.0f);
  if (to != RNN_STATE_ELEMENT_F32)
    dst_desc.zero_point[1] = -2;

  src = new_busy_slot (&src_desc);
  dst = rnn_state_slot_new (&dst_desc, NULL);
  for (i = 0; i < N_VALUES; i++)
    truth[i] = 0.8f * cosf (0.7f * i);
  bytes = rnn_state_slot_snapshot (src);
  ck_assert (rnn_state_slot_import (dst, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  rnn_state_slot_read (dst, got, NULL);
  for (l = 0; l < 2; l++) {
    gfloat bound = (rnn_state_quant_step (&src_desc, l)
                       + rnn_state_quant_step (&dst_desc, l))
        / 2.0f * 1.0001f;
    for (i = rnn_state_descriptor_layer_offset (&dst_desc, l);
         i < rnn_state_descriptor_layer_offset (&dst_desc, l + 1); i++) {
      if (bound == 0.0f)
        ck_assert (memcmp (&truth[i], &got[i], 4) == 0);
      else
        ck_assert_float_le (fabsf (truth[i] - got[i]), bound);
    }
  }
  rnn_state_slot_writeback (dst, got, NULL, NULL, NULL, 0);
  g_bytes_unref (bytes);
  rnn_state_slot_free (src);
  rnn_state_slot_free (dst);
}
END_TEST

static void
assert_refused (const guint8 *data, gsize size, const gchar *needle)
{
  GError *error = NULL;
  RnnStateSnapshot *snap = rnn_state_snapshot_parse (data, size, &error);

  ck_assert_ptr_null (snap);
  ck_assert_msg (g_error_matches (error, RNN_STATE_ERROR,
                     RNN_STATE_ERROR_CORRUPT),
      "size %" G_GSIZE_FORMAT ": %s", size,
      error ? error->message : "no error");
  if (needle != NULL)
    ck_assert_msg (strstr (error->message, needle) != NULL, "%s",
        error->message);
  g_clear_error (&error);
}

START_TEST (test_truncated_everywhere)
{
  RnnStateDescriptor desc;
  GBytes *bytes;
  const guint8 *data;
  gsize size, cut;

  make_desc (&desc);
  bytes = snapshot_of (&desc);
  data = g_bytes_get_data (bytes, &size);
  for (cut = 0; cut < size; cut++) {
    /* A heap copy of exactly cut bytes, so ASan sees any over-read. */
    guint8 *copy = g_memdup2 (data, cut);
    assert_refused (copy, cut, NULL);
    g_free (copy);
  }
  g_bytes_unref (bytes);
}
END_TEST

START_TEST (test_bit_flips_everywhere)
{
  RnnStateDescriptor desc;
  GBytes *bytes;
  guint8 *copy;
  gsize size, i;
  guint bit;

  make_desc (&desc);
  bytes = snapshot_of (&desc);
  copy = g_bytes_unref_to_data (bytes, &size);
  for (i = 0; i < size; i++) {
    for (bit = 0; bit < 8; bit++) {
      copy[i] ^= 1u << bit;
      assert_refused (copy, size, NULL);
      copy[i] ^= 1u << bit;
    }
  }
  g_free (copy);
}
END_TEST

/* Re-seals a modified header with a correct checksum, to get past the
 * envelope and reach the field checks. */
static void
reseal (guint8 *data, gsize size)
{
  guint32 crc = GUINT32_TO_LE (rnn_state_crc32 (data, size - 4));

  memcpy (data + size - 4, &crc, 4);
}

static void
set_u32 (guint8 *data, gsize offset, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (data + offset, &v, 4);
}

START_TEST (test_hostile_headers)
{
  RnnStateDescriptor desc;
  GBytes *bytes;
  guint8 *copy;
  gsize size;

  make_desc (&desc);
  bytes = snapshot_of (&desc);
  copy = g_bytes_unref_to_data (bytes, &size);

  set_u32 (copy, 0, 0x12345678);
  assert_refused (copy, size, "magic");
  set_u32 (copy, 0, RNN_STATE_SNAPSHOT_MAGIC);

  set_u32 (copy, 4, 9);
  reseal (copy, size);
  assert_refused (copy, size, "snapshot version 9");
  set_u32 (copy, 4, RNN_STATE_SNAPSHOT_VERSION);

  copy[size - 1] ^= 0x40;
  assert_refused (copy, size, "checksum");
  reseal (copy, size);

  /* A huge batch and hidden size: refused before any allocation. */
  set_u32 (copy, 32, 0x7fffffff);
  reseal (copy, size);
  assert_refused (copy, size, "batch");
  set_u32 (copy, 32, 2);
  set_u32 (copy, 56, 0xffffffff);
  reseal (copy, size);
  assert_refused (copy, size, "hidden size");
  set_u32 (copy, 56, 3);
  set_u32 (copy, 36, 1000);
  reseal (copy, size);
  assert_refused (copy, size, "layer count");
  set_u32 (copy, 36, 2);
  set_u32 (copy, 44, 0xfffffff0);
  reseal (copy, size);
  assert_refused (copy, size, "DSP history");
  /* A plausible but larger history: section sizes no longer agree. */
  set_u32 (copy, 44, HISTORY + 1);
  reseal (copy, size);
  assert_refused (copy, size, "sections");
  set_u32 (copy, 44, HISTORY);
  set_u32 (copy, 8, 9999);
  reseal (copy, size);
  assert_refused (copy, size, "header size");
  set_u32 (copy, 8, 56 + 2 * 12 + 8);
  reseal (copy, size);

  /* Unchanged again: accepted. */
  {
    RnnStateSnapshot *snap = rnn_state_snapshot_parse (copy, size, NULL);
    ck_assert_ptr_nonnull (snap);
    ck_assert_uint_eq (rnn_state_snapshot_get_descriptor (snap)->model_id,
        desc.model_id);
    rnn_state_snapshot_free (snap);
  }
  g_free (copy);
}
END_TEST

START_TEST (test_crc32_known_value)
{
  /* The standard check value of CRC-32/ISO-HDLC. */
  ck_assert_uint_eq (rnn_state_crc32 ("123456789", 9), 0xCBF43926u);
}
END_TEST

/* The shared hash and little-endian fields of both file formats. */
START_TEST (test_bytes_helpers)
{
  const guint8 le[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };
  guint8 out[8];

  /* FNV-1a 64 test vectors: the empty string and "a". */
  ck_assert_uint_eq (rnn_state_fnv1a64 ("", 0),
      G_GUINT64_CONSTANT (0xcbf29ce484222325));
  ck_assert_uint_eq (rnn_state_fnv1a64 ("a", 1),
      G_GUINT64_CONSTANT (0xaf63dc4c8601ec8c));
  ck_assert_uint_eq (rnn_state_get_u16 (le), 0x0201);
  ck_assert_uint_eq (rnn_state_get_u32 (le), 0x04030201u);
  ck_assert_uint_eq (rnn_state_get_u64 (le),
      G_GUINT64_CONSTANT (0x0807060504030201));
  ck_assert_ptr_eq (rnn_state_put_u32 (out, 0x04030201u), out + 4);
  ck_assert_ptr_eq (rnn_state_put_f32 (out + 4, -1.5f), out + 8);
  ck_assert (memcmp (out, le, 4) == 0);
  ck_assert_float_eq (rnn_state_get_f32 (out + 4), -1.5f);
  ck_assert_ptr_eq (rnn_state_put_u64 (out,
                        G_GUINT64_CONSTANT (0x0807060504030201)),
      out + 8);
  ck_assert (memcmp (out, le, 8) == 0);
}
END_TEST

static Suite *
state_snapshot_suite (void)
{
  Suite *s = suite_create ("state-snapshot");
  TCase *tc;

  tc = tcase_create ("serialize");
  tcase_add_test (tc, test_crc32_known_value);
  tcase_add_test (tc, test_bytes_helpers);
  tcase_add_test (tc, test_round_trip_bit_exact);
  tcase_add_test (tc, test_import_survives_stream_reset);
  suite_add_tcase (s, tc);

  tc = tcase_create ("validate");
  tcase_add_loop_test (tc, test_import_mismatch, 0,
      G_N_ELEMENTS (mismatch_cases));
  tcase_add_test (tc, test_equal_size_other_layout);
  tcase_add_loop_test (tc, test_rescale_round_trip, 0, 9);
  suite_add_tcase (s, tc);

  tc = tcase_create ("corrupt");
  tcase_add_test (tc, test_truncated_everywhere);
  tcase_add_test (tc, test_bit_flips_everywhere);
  tcase_add_test (tc, test_hostile_headers);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (state_snapshot_suite);

/* rnndenoise — element tests: refused imports, model files, unsupported caps
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "rnndenoise-helpers.h"

/* ---------------------------------------------------------------------
 * Refused import-state: one row per reason; the state stays as it was
 * --------------------------------------------------------------------- */

static GBytes *
stereo_snapshot (void)
{
  GstHarness *h = new_stream_harness (F32_CAPS (2));
  GBytes *snap = export_state (h->element, "sink");

  gst_harness_teardown (h);
  return snap;
}

static GBytes *
flipped_snapshot (void)
{
  GBytes *snap = mono_snapshot ();
  gsize size;
  guint8 *data = g_bytes_unref_to_data (snap, &size);

  data[size / 2] ^= 0x10;
  return g_bytes_new_take (data, size);
}

static GBytes *
other_model_snapshot (void)
{
  GBytes *snap = mono_snapshot ();
  gsize size;
  guint8 *data = g_bytes_unref_to_data (snap, &size);
  guint32 crc;

  /* Another model id (offset 16), re-sealed with a valid checksum. */
  data[16] ^= 0xff;
  crc = GUINT32_TO_LE (rnn_state_crc32 (data, size - 4));
  memcpy (data + size - 4, &crc, 4);
  return g_bytes_new_take (data, size);
}

/* The mono snapshot with the u32 at @offset replaced by @value and
 * re-sealed with a valid checksum: only the field differs. */
static GBytes *
resealed_snapshot (gsize offset, guint32 value)
{
  GBytes *snap = mono_snapshot ();
  gsize size;
  guint8 *data = g_bytes_unref_to_data (snap, &size);
  guint32 le = GUINT32_TO_LE (value), crc;

  memcpy (data + offset, &le, 4);
  crc = GUINT32_TO_LE (rnn_state_crc32 (data, size - 4));
  memcpy (data + size - 4, &crc, 4);
  return g_bytes_new_take (data, size);
}

static GBytes *
other_version_snapshot (void)
{
  return resealed_snapshot (12, 2);
}

static GBytes *
other_cell_snapshot (void)
{
  return resealed_snapshot (24, RNN_STATE_CELL_TEACH);
}

static GBytes *
bidirectional_snapshot (void)
{
  return resealed_snapshot (28, RNN_STATE_DIRECTION_BIDIRECTIONAL);
}

static GBytes *
unknown_type_snapshot (void)
{
  return resealed_snapshot (40, 9);
}

/* A well-formed snapshot of another layout: the mono snapshot's
 * descriptor with one field edited, zero values. */
typedef enum
{
  EDIT_LAYERS,
  EDIT_HIDDEN,
  EDIT_HISTORY,
} LayoutEdit;

static GBytes *
edited_layout_snapshot (LayoutEdit edit)
{
  GBytes *snap = mono_snapshot ();
  RnnStateSnapshot *parsed
      = rnn_state_snapshot_parse (g_bytes_get_data (snap, NULL),
          g_bytes_get_size (snap), NULL);
  RnnStateDescriptor desc = *rnn_state_snapshot_get_descriptor (parsed);
  gpointer hidden;
  gfloat *history;
  GBytes *out;

  switch (edit) {
    case EDIT_LAYERS:
      desc.n_layers = 1;
      break;
    case EDIT_HIDDEN:
      desc.hidden[1] -= 1;
      break;
    case EDIT_HISTORY:
      desc.history_size -= 1;
      break;
  }
  hidden = g_malloc0 (rnn_state_descriptor_hidden_bytes (&desc));
  history = g_new0 (gfloat, desc.history_size);
  out = rnn_state_snapshot_serialize (&desc, 1, hidden, history);
  g_free (hidden);
  g_free (history);
  rnn_state_snapshot_free (parsed);
  g_bytes_unref (snap);
  return out;
}

static GBytes *
other_layers_snapshot (void)
{
  return edited_layout_snapshot (EDIT_LAYERS);
}

static GBytes *
other_hidden_snapshot (void)
{
  return edited_layout_snapshot (EDIT_HIDDEN);
}

static GBytes *
other_history_snapshot (void)
{
  return edited_layout_snapshot (EDIT_HISTORY);
}

/* One row per reason; the needle is the part of the warning that names
 * the field and the values. */
static const struct
{
  const gchar *pad;
  GBytes *(*make) (void);
  const gchar *needle;
  gboolean before_caps; /* refused before caps too */
} refused_cases[] = {
  { "sink", other_version_snapshot, "format version 2", TRUE },
  { "sink", other_cell_snapshot, "cell kind teach, stream expects gru", TRUE },
  { "sink", bidirectional_snapshot,
      "direction bidirectional, stream expects forward", TRUE },
  { "sink", other_layers_snapshot, "layer count 1, stream expects 2", TRUE },
  /* The sizes follow the shipped model: one less than the stream's. */
  { "sink", other_hidden_snapshot, "hidden size of layer 1 is", TRUE },
  { "sink", other_history_snapshot, "DSP history size", TRUE },
  { "sink", unknown_type_snapshot, "unknown element type 9", TRUE },
  { "sink", stereo_snapshot, "batch 2, stream expects 1", FALSE },
  { "sink", other_model_snapshot, "model id", TRUE },
  { "sink", flipped_snapshot, "checksum", TRUE },
  { "sink", NULL, "no state given", TRUE },
  { "sink_7", mono_snapshot, "no stream called", TRUE },
  { NULL, mono_snapshot, "no stream called", TRUE },
};

GST_START_TEST (test_import_state_refused)
{
  GstHarness *h = new_stream_harness (F32_CAPS (1));
  GBytes *bytes
      = refused_cases[__i__].make != NULL ? refused_cases[__i__].make () : NULL;
  gfloat *x = make_signal (HOP, 1, 13);
  GBytes *before, *after;
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;

  gst_element_set_bus (h->element, bus);
  push_signal (h, x, HOP, 1, HOP, 0);
  before = export_state (h->element, "sink");
  fail_if (import_state (h->element, refused_cases[__i__].pad, bytes));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, refused_cases[__i__].needle) != NULL,
      "\"%s\" does not name \"%s\"", error->message,
      refused_cases[__i__].needle);
  after = export_state (h->element, "sink");
  fail_unless (snapshot_content_equal (before, after));

  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  if (bytes != NULL)
    g_bytes_unref (bytes);
  g_bytes_unref (before);
  g_bytes_unref (after);
  g_free (x);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A refused import-state before caps leaves the stream without a state: no
 * snapshot, no counters; an accepted one then still seeds the stream. */
GST_START_TEST (test_import_state_refused_before_caps)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *pad = gst_element_get_static_pad (e, "sink");
  GBytes *bytes
      = refused_cases[__i__].make != NULL ? refused_cases[__i__].make () : NULL;
  GBytes *good = mono_snapshot ();
  GstStructure *stats = NULL;

  /* Before caps the stream's channel count is not known yet. */
  if (refused_cases[__i__].before_caps)
    fail_if (import_state (e, refused_cases[__i__].pad, bytes));
  fail_unless (export_state (e, "sink") == NULL);
  g_object_get (pad, "state-stats", &stats, NULL);
  fail_unless (stats == NULL, "a refused import made a state");
  fail_unless (import_state (e, "sink", good));
  g_object_get (pad, "state-stats", &stats, NULL);
  fail_unless (stats != NULL);
  gst_structure_free (stats);

  if (bytes != NULL)
    g_bytes_unref (bytes);
  g_bytes_unref (good);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_export_state_before_caps_and_unknown)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  GstPad *pad = gst_element_request_pad_simple (e, "sink_%u");

  fail_unless_equals_string (GST_PAD_NAME (pad), "sink_1");
  fail_unless (export_state (e, "sink") == NULL);
  fail_unless (export_state (e, "sink_1") == NULL);
  fail_unless (export_state (e, "sink_9") == NULL);
  fail_unless (export_state (e, NULL) == NULL);
  gst_element_release_request_pad (e, pad);
  /* A released pad is unknown. */
  fail_unless (export_state (e, "sink_1") == NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---------------------------------------------------------------------
 * Model file, caps
 * --------------------------------------------------------------------- */

GST_START_TEST (test_bad_model_fails_state_change)
{
  GstElement *e = gst_element_factory_make ("rnndenoise", NULL);
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("rnndenoise-bad-XXXXXX.rnnm", &path, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;

  fail_unless (fd >= 0);
  fail_unless (g_file_set_contents (path, "RNDM garbage", -1, NULL));
  g_close (fd, NULL);
  gst_element_set_bus (e, bus);
  g_object_set (e, "model", path, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_READ));
  g_clear_error (&error);
  gst_message_unref (msg);

  g_object_set (e, "model", "/nonexistent/model.rnnm", NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &error, NULL);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND));
  g_clear_error (&error);
  gst_message_unref (msg);

  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

static const gchar *const unsupported_caps[] = {
  "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=0",
  "audio/x-raw,format=F32LE,layout=interleaved,rate=44100,channels=1",
  "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=9",
  "audio/x-raw,format=F32LE,layout=non-interleaved,rate=48000,channels=2",
  "audio/x-raw,format=S32LE,layout=interleaved,rate=48000,channels=1",
};

GST_START_TEST (test_unsupported_caps)
{
  GstHarness *h = gst_harness_new ("rnndenoise");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *error = NULL;
  gchar *debug = NULL;
  GstCaps *caps;

  gst_element_set_bus (h->element, bus);
  /* Refused by the accept-caps check, with a warning that says why. */
  caps = gst_caps_from_string (unsupported_caps[__i__]);
  gst_pad_push_event (h->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &error, &debug);
  fail_unless (strstr (error->message, "audioresample") != NULL);
  fail_unless (strstr (error->message, "48000") != NULL);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

void
rnndenoise_add_error_tests (Suite *s)
{
  TCase *tc;

  tc = tcase_create ("errors");
  tcase_add_loop_test (tc, test_import_state_refused, 0,
      G_N_ELEMENTS (refused_cases));
  tcase_add_loop_test (tc, test_import_state_refused_before_caps, 0,
      G_N_ELEMENTS (refused_cases));
  tcase_add_test (tc, test_export_state_before_caps_and_unknown);
  tcase_add_test (tc, test_bad_model_fails_state_change);
  tcase_add_loop_test (tc, test_unsupported_caps, 0,
      G_N_ELEMENTS (unsupported_caps));
  suite_add_tcase (s, tc);
}

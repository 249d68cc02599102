/* rnndenoise — stress test: 16 streams on one element, each pushed from its
 * own thread with its own buffer size, while application threads call
 * export-state, import-state (valid and invalid) and reset, change properties,
 * and request and release pads.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Streams 0..7 are never touched by an application call that changes
 * state: their audio must be bit-identical to the processor run alone.
 * Streams 8..15 are the targets of resets and imports. Every snapshot of an
 * untouched stream must be a completed state: the whole state (hidden
 * section and DSP history) that its pushing thread exported right after
 * some buffer, or before the first. Meson runs this
 * with and without RNNDENOISE_FAULTS=writeback-delay-us=...; set
 * RNNDENOISE_STRESS_SECONDS for a longer run (default 3 s of audio per
 * stream).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_snapshot.h"

#define RATE 48000
#define N_STREAMS 16
#define N_UNTOUCHED 8
#define N_CHECKED 2 /* untouched streams with a state pad */

typedef struct
{
  guint index;
  GstElement *element; /* borrowed */
  guint channels;
  guint chunk;
  guint n;               /* samples per channel */
  gfloat *x;             /* owned */
  GstHarness *h;         /* owned */
  GstHarness *hs;        /* owned, nullable: the state pad */
  GByteArray *out;       /* owned */
  GPtrArray *states;     /* owned; F32 states from the state pad */
  GHashTable *completed; /* owned, nullable; whole states after each buffer
                          * (see content_of), for the checked streams */
} Stream;

typedef struct
{
  GstElement *element;
  Stream *streams;
  gint stop;
  GMutex lock;
  GPtrArray *snapshots[N_CHECKED]; /* lock */
  guint calls;                     /* lock */
} App;

static gfloat *
make_signal (guint n, guint channels, guint32 seed)
{
  gfloat *x = g_new (gfloat, (gsize) n * channels);
  GRand *rand = g_rand_new_with_seed (seed);
  gsize i;

  for (i = 0; i < (gsize) n * channels; i++)
    x[i] = (gfloat) (0.3 * sin (0.01 * i * (1 + seed % 7))
        + 0.1 * g_rand_double_range (rand, -1.0, 1.0));
  g_rand_free (rand);
  return x;
}

static GBytes *
export_state (GstElement *element, const gchar *pad)
{
  GBytes *bytes = NULL;

  g_signal_emit_by_name (element, "export-state", pad, &bytes);
  return bytes;
}

/* A snapshot's bytes without the generation (offset 48, 8 bytes) and the
 * checksum: equal for two snapshots of the same whole state. */
static GBytes *
content_of (GBytes *snapshot)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (snapshot, &size);
  guint8 *key;

  fail_unless (size > 60);
  key = g_malloc (size - 12);
  memcpy (key, data, 48);
  memcpy (key + 48, data + 56, size - 60);
  return g_bytes_new_take (key, size - 12);
}

/* Stream @index's pad: the first stream has the always pads "sink" and
 * "src", the others "sink_N" and "src_N". */
static gchar *
stream_pad_name (const gchar *prefix, guint index)
{
  if (index == 0)
    return g_strdup (prefix);
  return g_strdup_printf ("%s_%u", prefix, index);
}

/* Records the stream's whole state as a completed one. */
static void
record_completed (Stream *st)
{
  gchar *name = stream_pad_name ("sink", st->index);
  GBytes *snap = export_state (st->element, name);

  fail_unless (snap != NULL);
  g_hash_table_add (st->completed, content_of (snap));
  g_bytes_unref (snap);
  g_free (name);
}

static guint
stress_seconds (void)
{
  const gchar *s = g_getenv ("RNNDENOISE_STRESS_SECONDS");
  guint v = s != NULL ? (guint) g_ascii_strtoull (s, NULL, 10) : 3;

  return MAX (v, 1);
}

static void
stream_init (Stream *st, GstElement *element, guint index)
{
  static const guint chunks[] = { 160, 479, 480, 481, 1000, 4096, 333, 960 };
  gchar *sink = stream_pad_name ("sink", index);
  gchar *src = stream_pad_name ("src", index);
  gchar *caps, *state = g_strdup_printf ("state_%u", index);

  memset (st, 0, sizeof (*st));
  st->index = index;
  st->element = element;
  st->channels = 1 + index % 2;
  st->chunk = chunks[index % G_N_ELEMENTS (chunks)];
  st->n = stress_seconds () * RATE;
  st->x = make_signal (st->n, st->channels, 100 + index);
  st->h = gst_harness_new_with_element (element, sink, src);
  caps = g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
                          "rate=48000,channels=%u",
      st->channels);
  gst_harness_set_src_caps_str (st->h, caps);
  /* The harness queues every output: drain it from the pushing thread. */
  st->out = g_byte_array_new ();
  st->states = g_ptr_array_new_with_free_func (g_free);
  if (index < N_CHECKED) {
    st->hs = gst_harness_new_with_element (element, NULL, state);
    gst_harness_set_sink_caps_str (st->hs,
        "application/x-rnn-state,format=F32LE");
    st->completed = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
        (GDestroyNotify) g_bytes_unref, NULL);
    record_completed (st);
  }
  g_free (caps);
  g_free (sink);
  g_free (src);
  g_free (state);
}

static void
collect_outputs (Stream *st)
{
  GstBuffer *buf;

  while ((buf = gst_harness_try_pull (st->h)) != NULL) {
    GstMapInfo map;

    gst_buffer_map (buf, &map, GST_MAP_READ);
    g_byte_array_append (st->out, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
  while (st->hs != NULL && (buf = gst_harness_try_pull (st->hs)) != NULL) {
    GstMapInfo map;

    gst_buffer_map (buf, &map, GST_MAP_READ);
    g_ptr_array_add (st->states, g_memdup2 (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  }
}

static gpointer
push_stream (gpointer data)
{
  Stream *st = data;
  guint done = 0;

  while (done < st->n) {
    guint m = MIN (st->chunk, st->n - done);
    GstBuffer *buf = gst_buffer_new_memdup (st->x + (gsize) done * st->channels,
        (gsize) m * st->channels * 4);

    GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (done, GST_SECOND, RATE);
    fail_unless_equals_int (gst_harness_push (st->h, buf), GST_FLOW_OK);
    if (st->completed != NULL)
      record_completed (st);
    collect_outputs (st);
    done += m;
  }
  gst_harness_push_event (st->h, gst_event_new_eos ());
  collect_outputs (st);
  return NULL;
}

/* One random application call by thread @id of @n_threads. */
static void
app_call (App *app, GRand *rand, guint id, guint n_threads)
{
  guint touched
      = N_UNTOUCHED + g_rand_int_range (rand, 0, N_STREAMS - N_UNTOUCHED);
  gchar *pad = stream_pad_name ("sink", touched);
  gboolean ok;
  GBytes *snap;

  switch (g_rand_int_range (rand, 0, 8)) {
    case 0: { /* snapshot of an untouched, checked stream */
      guint c = g_rand_int_range (rand, 0, N_CHECKED);
      gchar *name = stream_pad_name ("sink", c);

      snap = export_state (app->element, name);
      g_free (name);
      if (snap != NULL) {
        g_mutex_lock (&app->lock);
        g_ptr_array_add (app->snapshots[c], snap);
        g_mutex_unlock (&app->lock);
      }
      break;
    }
    case 1: /* valid import: its own state */
      snap = export_state (app->element, pad);
      if (snap != NULL) {
        g_signal_emit_by_name (app->element, "import-state", pad, snap, &ok);
        fail_unless (ok);
        g_bytes_unref (snap);
      }
      break;
    case 2: { /* invalid import: garbage */
      guint8 junk[64];

      memset (junk, g_rand_int (rand) & 0xff, sizeof (junk));
      snap = g_bytes_new (junk, sizeof (junk));
      g_signal_emit_by_name (app->element, "import-state", pad, snap, &ok);
      fail_if (ok);
      g_bytes_unref (snap);
      break;
    }
    case 3:
      g_signal_emit_by_name (app->element, "reset", pad, &ok);
      fail_unless (ok);
      break;
    case 4: { /* a per-pad property of a touched stream */
      gchar *prop = g_strdup_printf ("%s::attenuation-limit", pad);

      gst_child_proxy_set (GST_CHILD_PROXY (app->element), prop,
          g_rand_double_range (rand, 0.0, 40.0), NULL);
      g_free (prop);
      break;
    }
    case 5: /* properties that never change the audio */
      g_object_set (app->element, "post-messages", g_rand_boolean (rand),
          "message-interval",
          (guint64) g_rand_int_range (rand, 10, 200) * GST_MSECOND, NULL);
      break;
    case 6: { /* a pad that comes and goes */
      GstPad *extra = gst_element_request_pad_simple (app->element, "sink_%u");

      fail_unless (extra != NULL);
      gst_element_release_request_pad (app->element, extra);
      gst_object_unref (extra);
      break;
    }
    default: { /* a state pad of a touched stream */
      /* Each thread its own streams: requesting a pad name that another
       * thread holds at that moment is a programming error. */
      guint mine = touched - (touched - N_UNTOUCHED) % n_threads + id;
      gchar *name = g_strdup_printf ("state_%u", MIN (mine, N_STREAMS - 1));
      GstPad *statepad = gst_element_request_pad_simple (app->element, name);

      if (statepad != NULL) {
        gst_element_release_request_pad (app->element, statepad);
        gst_object_unref (statepad);
      }
      g_free (name);
      break;
    }
  }
  g_mutex_lock (&app->lock);
  app->calls++;
  g_mutex_unlock (&app->lock);
  g_free (pad);
}

typedef struct
{
  App *app;
  guint id;
} AppThread;

#define N_APP_THREADS 2

static gpointer
app_thread (gpointer data)
{
  AppThread *t = data;
  GRand *rand = g_rand_new_with_seed (17 + t->id);

  while (!g_atomic_int_get (&t->app->stop)) {
    app_call (t->app, rand, t->id, N_APP_THREADS);
    g_usleep (50);
  }
  g_rand_free (rand);
  return NULL;
}

static DspModel *
load_model (void)
{
  DspModel *model
      = dsp_model_new_from_file (g_getenv ("RNNDENOISE_MODEL"), NULL);

  fail_unless (model != NULL);
  return model;
}

static void
check_untouched (Stream *st, DspModel *model)
{
  DspProcessor *p = dsp_processor_new (model, st->channels, NULL);
  gsize total = (gsize) st->n * st->channels;
  gfloat *ref = g_new (gfloat, total + (gsize) 2048 * st->channels);
  guint produced;

  produced = dsp_processor_process (p, st->x, ref, st->n, NULL, NULL, 0, NULL);
  produced += dsp_processor_drain (p, ref + (gsize) produced * st->channels);
  fail_unless_equals_int (produced, st->n);
  fail_unless_equals_int (st->out->len, total * 4);
  fail_unless (memcmp (st->out->data, ref, total * 4) == 0,
      "stream %u differs from its isolated run", st->index);
  g_free (ref);
  dsp_processor_free (p);
}

static void
check_snapshots_completed (Stream *st, GPtrArray *snapshots)
{
  guint k;

  for (k = 0; k < snapshots->len; k++) {
    GBytes *content = content_of (g_ptr_array_index (snapshots, k));

    fail_unless (g_hash_table_contains (st->completed, content),
        "stream %u: snapshot %u is not a whole state after any buffer",
        st->index, k);
    g_bytes_unref (content);
  }
}

GST_START_TEST (test_stress)
{
  GstElement *element = gst_element_factory_make ("rnndenoise", NULL);
  Stream streams[N_STREAMS];
  App app = { element, streams, 0, { 0 }, { NULL }, 0 };
  GThread *pushers[N_STREAMS], *apps[N_APP_THREADS];
  AppThread app_threads[N_APP_THREADS];
  DspModel *model;
  guint i;

  g_mutex_init (&app.lock);
  for (i = 0; i < N_CHECKED; i++)
    app.snapshots[i]
        = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (i = 0; i < N_STREAMS; i++)
    stream_init (&streams[i], element, i);

  for (i = 0; i < N_APP_THREADS; i++) {
    app_threads[i].app = &app;
    app_threads[i].id = i;
    apps[i] = g_thread_new ("app", app_thread, &app_threads[i]);
  }
  for (i = 0; i < N_STREAMS; i++)
    pushers[i] = g_thread_new ("stream", push_stream, &streams[i]);
  for (i = 0; i < N_STREAMS; i++)
    g_thread_join (pushers[i]);
  g_atomic_int_set (&app.stop, 1);
  for (i = 0; i < N_APP_THREADS; i++)
    g_thread_join (apps[i]);

  GST_INFO ("%u application calls", app.calls);
  fail_unless (app.calls > 0);
  model = load_model ();
  for (i = 0; i < N_UNTOUCHED; i++)
    check_untouched (&streams[i], model);
  for (i = 0; i < N_CHECKED; i++) {
    fail_unless (streams[i].states->len > 0);
    check_snapshots_completed (&streams[i], app.snapshots[i]);
  }
  /* Touched streams still produced exactly one output per input sample. */
  for (i = N_UNTOUCHED; i < N_STREAMS; i++)
    fail_unless_equals_int (streams[i].out->len,
        (gsize) streams[i].n * streams[i].channels * 4);
  dsp_model_unref (model);

  for (i = 0; i < N_STREAMS; i++) {
    if (streams[i].hs != NULL)
      gst_harness_teardown (streams[i].hs);
    gst_harness_teardown (streams[i].h);
    g_free (streams[i].x);
    g_byte_array_unref (streams[i].out);
    g_ptr_array_unref (streams[i].states);
    if (streams[i].completed != NULL)
      g_hash_table_unref (streams[i].completed);
  }
  for (i = 0; i < N_CHECKED; i++)
    g_ptr_array_unref (app.snapshots[i]);
  g_mutex_clear (&app.lock);
  gst_object_unref (element);
}

GST_END_TEST;

static Suite *
stress_suite (void)
{
  Suite *s = suite_create ("rnndenoise-stress");
  TCase *tc = tcase_create ("stress");

  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_stress);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (stress);

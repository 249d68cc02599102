/* rnndenoise — checks on the output of pipeline tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage:
 *   pipeline-check wav-frames FILE.wav FRAMES RATE CHANNELS
 *       FILE.wav holds exactly FRAMES samples per channel at RATE Hz.
 *   pipeline-check wav-same A.wav B.wav
 *       A and B have the same rate, channel count and length.
 *   pipeline-check state FILE CAPS SAMPLES_PER_BUFFER BUFFERS HOP
 *       FILE is the state stream captured from state_N with the caps CAPS
 *       (as gst-launch-1.0 -v prints them), for BUFFERS input buffers of
 *       SAMPLES_PER_BUFFER samples and frames of HOP samples: its size is
 *       the number of buffers that completed a frame times the state size
 *       the caps give, and every value is finite and within the range of
 *       a GRU state.
 *   pipeline-check refusal PIPELINE
 *       PIPELINE (gst-launch syntax) fails, and an rnndenoise element said
 *       why, naming audioresample.
 *   pipeline-check latency PIPELINE NANOSECONDS
 *       In PIPELINE, the element named "d" adds NANOSECONDS of latency
 *       (its src's latency query minus its upstream's).
 *   pipeline-check observer PIPELINE MODE SAMPLES
 *       PIPELINE names its rnndenoise "d", the audio sink "as" and the
 *       state branch "sq ! ss". While it plays, the state branch goes away
 *       (MODE sink-null: sq and ss are set to NULL, so state_0's pushes
 *       return FLUSHING; MODE release: state_0 is released; MODE
 *       release-early: state_0 is released as soon as the pipeline is told
 *       to play, before its branch had a buffer; MODE release-paused: for
 *       a pipeline that is not live, state_0 is released in PAUSED once
 *       the queues are full, and the release must not wait for the branch,
 *       then it plays); the audio must still
 *       reach EOS at "as" with SAMPLES mono F32 samples, and when state_0
 *       was released the pipeline must reach PLAYING and post EOS (the
 *       released pad ended its branch).
 *   pipeline-check launch [-q] [-v] PIPELINE...
 *       Runs PIPELINE to EOS like gst-launch-1.0 (exit 1 on an error); with
 *       -v, prints the caps of every pad at EOS in gst-launch-1.0 -v's
 *       form. The tests use it in builds with sanitizers, where this
 *       program, unlike gst-launch-1.0, carries the sanitizer runtime.
 *
 * Exits 0 if the check holds, 1 with a message if not, 2 on bad usage.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>

#define FAIL(...) \
  G_STMT_START \
  { \
    g_printerr ("FAIL: " __VA_ARGS__); \
    g_printerr ("\n"); \
    return 1; \
  } \
  G_STMT_END

/* ------------------------------------------------------------------------
 * WAV headers
 * ------------------------------------------------------------------------ */

typedef struct
{
  guint rate;
  guint channels;
  guint block_align;
  guint64 frames;
} WavInfo;

static guint32
le32 (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) | ((guint32) p[2] << 16)
      | ((guint32) p[3] << 24);
}

static guint16
le16 (const guint8 *p)
{
  return (guint16) (p[0] | (p[1] << 8));
}

/* Reads a WAV file's format and counts its frames from the data chunk,
 * which must fit in the file and hold whole frames. */
static gboolean
read_wav_info (const gchar *path, WavInfo *info, gchar **why)
{
  gchar *contents;
  gsize length, left;
  const guint8 *p;
  gboolean have_fmt = FALSE;

  memset (info, 0, sizeof (*info));
  if (!g_file_get_contents (path, &contents, &length, NULL)) {
    *why = g_strdup_printf ("%s cannot be read", path);
    return FALSE;
  }
  p = (const guint8 *) contents;
  if (length < 12 || memcmp (p, "RIFF", 4) != 0
      || memcmp (p + 8, "WAVE", 4) != 0) {
    *why = g_strdup_printf ("%s is not a WAV file", path);
    g_free (contents);
    return FALSE;
  }
  p += 12;
  left = length - 12;
  while (left >= 8) {
    guint32 size = le32 (p + 4);

    if (memcmp (p, "fmt ", 4) == 0 && size >= 16 && size <= left - 8) {
      info->channels = le16 (p + 10);
      info->rate = le32 (p + 12);
      info->block_align = le16 (p + 20);
      have_fmt = info->channels > 0 && info->block_align > 0;
    } else if (memcmp (p, "data", 4) == 0) {
      if (!have_fmt || size > left - 8 || size % info->block_align != 0) {
        *why = g_strdup_printf ("%s: data chunk of %u bytes with "
                                "%" G_GSIZE_FORMAT " bytes left and %u-byte "
                                "frames",
            path, size, left - 8, info->block_align);
        g_free (contents);
        return FALSE;
      }
      info->frames = size / info->block_align;
      g_free (contents);
      return TRUE;
    }
    if (size > left - 8)
      break;
    size += size & 1;
    p += 8 + MIN (size, left - 8);
    left -= 8 + MIN (size, left - 8);
  }
  *why = g_strdup_printf ("%s has no fmt and data chunks", path);
  g_free (contents);
  return FALSE;
}

static int
check_wav_frames (const gchar *path, const gchar *frames, const gchar *rate,
    const gchar *channels)
{
  WavInfo info;
  gchar *why = NULL;
  guint64 want = g_ascii_strtoull (frames, NULL, 10);

  if (!read_wav_info (path, &info, &why))
    FAIL ("%s", why);
  if (info.rate != (guint) atoi (rate)
      || info.channels != (guint) atoi (channels))
    FAIL ("%s is %u Hz with %u channel(s), expected %s Hz with %s", path,
        info.rate, info.channels, rate, channels);
  if (info.frames != want)
    FAIL ("%s has %" G_GUINT64_FORMAT " samples per channel, the input had "
          "%" G_GUINT64_FORMAT,
        path, info.frames, want);
  g_print ("ok: %s has %" G_GUINT64_FORMAT " samples per channel, like "
           "the input\n",
      path, info.frames);
  return 0;
}

static int
check_wav_same (const gchar *a, const gchar *b)
{
  WavInfo ia, ib;
  gchar *why = NULL;

  if (!read_wav_info (a, &ia, &why) || !read_wav_info (b, &ib, &why))
    FAIL ("%s", why);
  if (ia.rate != ib.rate || ia.channels != ib.channels)
    FAIL ("%s is %u Hz x %u, %s is %u Hz x %u", a, ia.rate, ia.channels, b,
        ib.rate, ib.channels);
  if (ia.frames != ib.frames)
    FAIL ("%s has %" G_GUINT64_FORMAT
          " samples per channel, %s has %" G_GUINT64_FORMAT,
        a, ia.frames, b, ib.frames);
  g_print ("ok: %s and %s both have %" G_GUINT64_FORMAT " samples per "
           "channel\n",
      a, b, ia.frames);
  return 0;
}

/* ------------------------------------------------------------------------
 * The state stream
 * ------------------------------------------------------------------------ */

/* Buffers of @spb samples that complete at least one frame of @hop
 * samples, among @n_buffers: the element pushes one state buffer after
 * each of them. */
static guint64
state_buffers_expected (guint64 spb, guint64 n_buffers, guint64 hop)
{
  guint64 k, count = 0;

  for (k = 1; k <= n_buffers; k++)
    if ((k * spb) / hop > ((k - 1) * spb) / hop)
      count++;
  return count;
}

static int
check_state (const gchar *path, const gchar *caps_string, const gchar *spb,
    const gchar *n_buffers, const gchar *hop)
{
  const gchar *format, *cell, *direction, *layout, *model_id, *hidden;
  GstStructure *s;
  GstCaps *caps;
  gchar **sizes;
  gchar *contents;
  gsize length, state_size, values = 0, i, b, n_states;
  guint64 expected;
  gint layers = 0, batch = 0, zero_point = 0;
  gdouble scale = -1.0;
  guint elsize, n;
  gboolean nonzero = FALSE, changes = FALSE;

  caps = gst_caps_from_string (caps_string);
  if (caps == NULL || gst_caps_get_size (caps) != 1)
    FAIL ("state caps \"%s\" do not parse", caps_string);
  s = gst_caps_get_structure (caps, 0);
  format = gst_structure_get_string (s, "format");
  cell = gst_structure_get_string (s, "cell");
  direction = gst_structure_get_string (s, "direction");
  layout = gst_structure_get_string (s, "layout");
  model_id = gst_structure_get_string (s, "model-id");
  hidden = gst_structure_get_string (s, "hidden-sizes");
  if (!gst_structure_has_name (s, "application/x-rnn-state") || format == NULL
      || cell == NULL || direction == NULL || layout == NULL || model_id == NULL
      || hidden == NULL || !gst_structure_get_int (s, "layers", &layers)
      || !gst_structure_get_int (s, "batch", &batch)
      || !gst_structure_get_double (s, "scale", &scale)
      || !gst_structure_get_int (s, "zero-point", &zero_point))
    FAIL ("state caps lack a field: %s", caps_string);
  if (g_strcmp0 (cell, "gru") != 0 || g_strcmp0 (direction, "forward") != 0
      || g_strcmp0 (layout, "layer-major") != 0 || strlen (model_id) != 16
      || strspn (model_id, "0123456789abcdef") != 16)
    FAIL ("unexpected cell, direction, layout or model-id: %s", caps_string);
  if (g_str_equal (format, "F32LE"))
    elsize = 4;
  else if (g_str_equal (format, "S16LE"))
    elsize = 2;
  else if (g_str_equal (format, "S8"))
    elsize = 1;
  else
    FAIL ("unknown state format %s", format);
  if (elsize == 4 ? scale != 0.0 : !(scale > 0.0))
    FAIL ("scale %g does not fit format %s", scale, format);

  sizes = g_strsplit (hidden, ",", -1);
  n = g_strv_length (sizes);
  for (i = 0; i < n; i++) {
    guint64 h = g_ascii_strtoull (sizes[i], NULL, 10);

    if (h == 0 || h > 1024) {
      g_strfreev (sizes);
      FAIL ("hidden size %" G_GUINT64_FORMAT " in %s", h, hidden);
    }
    values += (gsize) h * (gsize) batch;
  }
  g_strfreev (sizes);
  if ((gint) n != layers || batch < 1)
    FAIL ("%d layers but hidden-sizes \"%s\", batch %d", layers, hidden, batch);
  state_size = values * elsize;

  expected = state_buffers_expected (g_ascii_strtoull (spb, NULL, 10),
      g_ascii_strtoull (n_buffers, NULL, 10), g_ascii_strtoull (hop, NULL, 10));
  if (!g_file_get_contents (path, &contents, &length, NULL))
    FAIL ("%s cannot be read", path);
  if (length != expected * state_size) {
    g_free (contents);
    FAIL ("%s has %" G_GSIZE_FORMAT " bytes; expected %" G_GUINT64_FORMAT
          " state buffers of %" G_GSIZE_FORMAT " bytes (%" G_GSIZE_FORMAT
          " values of %u bytes)",
        path, length, expected, state_size, values, elsize);
  }

  n_states = length / state_size;
  for (b = 0; b < n_states; b++) {
    const guint8 *p = (const guint8 *) contents + b * state_size;

    for (i = 0; i < values; i++) {
      gdouble v;
      guint32 u;
      gfloat f;

      if (elsize == 4) {
        u = le32 (p + 4 * i);
        memcpy (&f, &u, sizeof (f));
        v = f;
      } else if (elsize == 2) {
        v = ((gint16) le16 (p + 2 * i) - zero_point) * scale;
      } else {
        v = ((gint8) p[i] - zero_point) * scale;
      }
      /* GRU states are tanh-bounded: |h| <= 1 (plus one step). */
      if (!isfinite (v) || fabs (v) > 1.0 + (elsize == 4 ? 1e-6 : scale)) {
        g_free (contents);
        FAIL ("state buffer %" G_GSIZE_FORMAT ", value %" G_GSIZE_FORMAT
              " is %g",
            b, i, v);
      }
      nonzero |= v != 0.0;
    }
    if (b > 0 && memcmp (p - state_size, p, state_size) != 0)
      changes = TRUE;
  }
  g_free (contents);
  if (!nonzero)
    FAIL ("every state value in %s is zero", path);
  if (n_states > 1 && !changes)
    FAIL ("the state in %s never changes between buffers", path);
  g_print ("ok: %s holds %" G_GSIZE_FORMAT " %s states of %" G_GSIZE_FORMAT
           " bytes (batch %d, hidden %s), all finite and within +-1\n",
      path, n_states, format, state_size, batch, hidden);
  gst_caps_unref (caps);
  return 0;
}

/* ------------------------------------------------------------------------
 * Pipelines run here rather than by gst-launch-1.0, whose main loop can
 * miss an error posted before it starts and then wait forever.
 * ------------------------------------------------------------------------ */

static GstElement *
parse_pipeline (const gchar *description)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);

  if (pipeline == NULL || error != NULL) {
    g_printerr ("FAIL: pipeline \"%s\" does not build: %s\n", description,
        error != NULL ? error->message : "?");
    g_clear_error (&error);
    gst_clear_object (&pipeline);
  }
  return pipeline;
}

static gboolean
from_rnndenoise (GstMessage *msg)
{
  GstElementFactory *factory;

  if (!GST_IS_ELEMENT (GST_MESSAGE_SRC (msg)))
    return FALSE;
  factory = gst_element_get_factory (GST_ELEMENT (GST_MESSAGE_SRC (msg)));
  return factory != NULL
      && g_str_equal (GST_OBJECT_NAME (factory), "rnndenoise");
}

static int
check_refusal (const gchar *description)
{
  GstElement *pipeline = parse_pipeline (description);
  gboolean failed = FALSE, explained = FALSE, done = FALSE;
  GstMessage *msg;
  GstBus *bus;
  GError *err;

  if (pipeline == NULL)
    return 1;
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  while (!done) {
    msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_EOS);
    if (msg == NULL)
      break;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      done = TRUE;
    } else {
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        gst_message_parse_error (msg, &err, NULL);
        failed = TRUE;
      } else {
        gst_message_parse_warning (msg, &err, NULL);
      }
      g_print ("%s from %s: %s\n", GST_MESSAGE_TYPE_NAME (msg),
          GST_MESSAGE_SRC_NAME (msg), err->message);
      if (from_rnndenoise (msg) && strstr (err->message, "audioresample"))
        explained = TRUE;
      g_clear_error (&err);
    }
    gst_message_unref (msg);
    /* After the error, read what is already on the bus, then stop. */
    if (failed) {
      while ((msg = gst_bus_pop_filtered (bus,
                  GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))
          != NULL) {
        if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
          gst_message_parse_error (msg, &err, NULL);
        else
          gst_message_parse_warning (msg, &err, NULL);
        if (from_rnndenoise (msg) && strstr (err->message, "audioresample"))
          explained = TRUE;
        g_clear_error (&err);
        gst_message_unref (msg);
      }
      done = TRUE;
    }
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  if (!failed)
    FAIL ("the pipeline did not fail: %s", description);
  if (!explained)
    FAIL ("it failed, but no rnndenoise message named audioresample");
  g_print ("ok: refused, with a message from rnndenoise naming "
           "audioresample\n");
  return 0;
}

static GstClockTime
min_latency (GstPad *pad, gboolean peer)
{
  GstQuery *query = gst_query_new_latency ();
  GstClockTime min = GST_CLOCK_TIME_NONE;

  if (peer ? gst_pad_peer_query (pad, query) : gst_pad_query (pad, query))
    gst_query_parse_latency (query, NULL, &min, NULL);
  gst_query_unref (query);
  return min;
}

static int
check_latency (const gchar *description, const gchar *nanoseconds)
{
  GstElement *pipeline = parse_pipeline (description), *d;
  GstClockTime total, upstream, want = g_ascii_strtoull (nanoseconds, NULL, 10);
  GstPad *srcpad, *sinkpad;

  if (pipeline == NULL)
    return 1;
  d = gst_bin_get_by_name (GST_BIN (pipeline), "d");
  if (d == NULL)
    FAIL ("no element named d in %s", description);
  if (gst_element_set_state (pipeline, GST_STATE_PAUSED)
          == GST_STATE_CHANGE_FAILURE
      || gst_element_get_state (pipeline, NULL, NULL, 20 * GST_SECOND)
          != GST_STATE_CHANGE_SUCCESS)
    FAIL ("the pipeline does not preroll: %s", description);
  srcpad = gst_element_get_static_pad (d, "src");
  sinkpad = gst_element_get_static_pad (d, "sink");
  total = min_latency (srcpad, FALSE);
  upstream = min_latency (sinkpad, TRUE);
  gst_object_unref (srcpad);
  gst_object_unref (sinkpad);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (d);
  gst_object_unref (pipeline);
  if (!GST_CLOCK_TIME_IS_VALID (total) || !GST_CLOCK_TIME_IS_VALID (upstream))
    FAIL ("the latency query was not answered");
  if (total - upstream != want)
    FAIL ("rnndenoise adds %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT,
        GST_TIME_ARGS (total - upstream), GST_TIME_ARGS (want));
  g_print ("ok: rnndenoise adds %" GST_TIME_FORMAT " of latency\n",
      GST_TIME_ARGS (want));
  return 0;
}

/* ------------------------------------------------------------------------
 * The state pad is an observer
 * ------------------------------------------------------------------------ */

typedef struct
{
  GMutex lock;
  GCond cond;
  guint64 bytes; /* lock */
  gboolean eos;  /* lock */
} AudioEnd;

static GstPadProbeReturn
watch_audio (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  AudioEnd *end = data;

  (void) pad;
  g_mutex_lock (&end->lock);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    end->bytes += gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info))
      == GST_EVENT_EOS) {
    end->eos = TRUE;
    g_cond_signal (&end->cond);
  }
  g_mutex_unlock (&end->lock);
  return GST_PAD_PROBE_OK;
}

static void
drop_state_branch (GstElement *pipeline, const gchar *mode)
{
  GstElement *d = gst_bin_get_by_name (GST_BIN (pipeline), "d");
  GstElement *sq = gst_bin_get_by_name (GST_BIN (pipeline), "sq");
  GstElement *ss = gst_bin_get_by_name (GST_BIN (pipeline), "ss");
  GstPad *statepad;

  if (g_str_equal (mode, "sink-null")) {
    gst_element_set_locked_state (ss, TRUE);
    gst_element_set_locked_state (sq, TRUE);
    gst_element_set_state (ss, GST_STATE_NULL);
    gst_element_set_state (sq, GST_STATE_NULL);
  } else { /* release, release-early, release-paused */
    statepad = gst_element_get_static_pad (d, "state_0");
    gst_element_release_request_pad (d, statepad);
    gst_object_unref (statepad);
  }
  gst_object_unref (d);
  gst_object_unref (sq);
  gst_object_unref (ss);
}

/* Prerolls the pipeline in PAUSED and lets its queues fill (the streaming
 * thread then waits in a full queue), then releases state_0: the release
 * must not wait for the branch, which takes nothing until PLAYING. */
static gboolean
release_while_paused (GstElement *pipeline, const gchar *mode)
{
  gint64 start;
  gdouble waited;

  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  if (gst_element_get_state (pipeline, NULL, NULL, 60 * GST_SECOND)
      != GST_STATE_CHANGE_SUCCESS) {
    g_printerr ("FAIL: the pipeline did not preroll in 60 s\n");
    return FALSE;
  }
  g_usleep (500 * 1000);
  start = g_get_monotonic_time ();
  drop_state_branch (pipeline, mode);
  waited = (g_get_monotonic_time () - start) / 1e6;
  if (waited > 5.0) {
    g_printerr ("FAIL: releasing state_0 in PAUSED waited %.1f s\n", waited);
    return FALSE;
  }
  return TRUE;
}

/* Whether the pipeline posts EOS (every sink got one) within 10 s. */
static gboolean
bus_says_eos (GstElement *pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean eos = msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

  if (msg != NULL)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return eos;
}

static int
check_observer (const gchar *description, const gchar *mode,
    const gchar *samples)
{
  GstElement *pipeline = parse_pipeline (description), *as;
  guint64 want = g_ascii_strtoull (samples, NULL, 10), got;
  gint64 deadline;
  AudioEnd end;
  GstPad *pad;
  gboolean eos, early, paused, pipeline_eos;

  if (pipeline == NULL)
    return 1;
  g_mutex_init (&end.lock);
  g_cond_init (&end.cond);
  end.bytes = 0;
  end.eos = FALSE;
  as = gst_bin_get_by_name (GST_BIN (pipeline), "as");
  pad = gst_element_get_static_pad (as, "sink");
  gst_pad_add_probe (pad,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      watch_audio, &end, NULL);
  gst_object_unref (pad);
  gst_object_unref (as);

  /* The branch goes away while the pipeline plays and state buffers
   * flow: first wait for PLAYING (the live pipeline gets there once every
   * sink, the state branch's too, has a buffer; a slow build can take
   * longer than the 300 ms below), then let it stream. Or, released early,
   * it goes before its sink could preroll: the element must end the branch
   * (EOS) or the live pipeline would stay in PAUSED. */
  early = g_str_equal (mode, "release-early");
  paused = g_str_equal (mode, "release-paused");
  if (paused && !release_while_paused (pipeline, mode)) {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    return 1;
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  if (early)
    drop_state_branch (pipeline, mode);
  if (gst_element_get_state (pipeline, NULL, NULL, 60 * GST_SECOND)
      != GST_STATE_CHANGE_SUCCESS) {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    FAIL ("the pipeline did not reach PLAYING in 60 s (%s): %s", mode,
        description);
  }
  if (!early && !paused) {
    g_usleep (300 * 1000);
    drop_state_branch (pipeline, mode);
  }
  deadline = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  g_mutex_lock (&end.lock);
  while (!end.eos && g_cond_wait_until (&end.cond, &end.lock, deadline))
    ;
  eos = end.eos;
  got = end.bytes / 4;
  g_mutex_unlock (&end.lock);
  /* A locked sink (sink-null) never posts EOS; a released pad's does. */
  pipeline_eos
      = g_str_equal (mode, "sink-null") || (eos && bus_says_eos (pipeline));
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_cond_clear (&end.cond);
  g_mutex_clear (&end.lock);
  if (!eos)
    FAIL ("the audio stopped after the state branch went away (%s): "
          "%" G_GUINT64_FORMAT " samples, no EOS after 20 s",
        mode, got);
  if (got != want)
    FAIL ("%" G_GUINT64_FORMAT " audio samples, expected %" G_GUINT64_FORMAT,
        got, want);
  if (!pipeline_eos)
    FAIL ("the audio ended but the pipeline posted no EOS (%s): the state "
          "branch was left without one",
        mode);
  g_print ("ok: the audio went on to EOS (%s), %" G_GUINT64_FORMAT " samples\n",
      mode, got);
  return 0;
}

static void
print_pad_caps (const GValue *item, gpointer user_data)
{
  GstPad *pad = g_value_get_object (item);
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gchar *path, *text;

  (void) user_data;
  if (caps == NULL)
    return;
  path = gst_object_get_path_string (GST_OBJECT (pad));
  text = gst_caps_to_string (caps);
  g_print ("%s: caps = %s\n", path, text);
  g_free (text);
  g_free (path);
  gst_caps_unref (caps);
}

static void
print_element_caps (const GValue *item, gpointer user_data)
{
  GstIterator *pads = gst_element_iterate_pads (g_value_get_object (item));

  while (gst_iterator_foreach (pads, print_pad_caps, user_data)
      == GST_ITERATOR_RESYNC)
    gst_iterator_resync (pads);
  gst_iterator_free (pads);
}

static int
run_launch (gint argc, gchar **argv)
{
  GstElement *pipeline;
  GstIterator *elements;
  GError *error = NULL;
  gboolean verbose = FALSE, ok = FALSE;
  GstMessage *msg;
  gchar *debug;

  while (argc > 0
      && (g_str_equal (argv[0], "-v") || g_str_equal (argv[0], "-q"))) {
    verbose |= g_str_equal (argv[0], "-v");
    argv++;
    argc--;
  }
  pipeline = gst_parse_launchv ((const gchar **) argv, &error);
  if (pipeline == NULL || error != NULL) {
    g_printerr ("FAIL: the pipeline does not build: %s\n",
        error != NULL ? error->message : "?");
    g_clear_error (&error);
    gst_clear_object (&pipeline);
    return 1;
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg == NULL) {
    g_printerr ("FAIL: no EOS after 60 s\n");
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, &debug);
    g_printerr ("ERROR: from element %s: %s\n%s\n", GST_MESSAGE_SRC_NAME (msg),
        error->message, GST_STR_NULL (debug));
    g_clear_error (&error);
    g_free (debug);
  } else {
    ok = TRUE;
    if (verbose) {
      elements = gst_bin_iterate_recurse (GST_BIN (pipeline));
      while (gst_iterator_foreach (elements, print_element_caps, NULL)
          == GST_ITERATOR_RESYNC)
        gst_iterator_resync (elements);
      gst_iterator_free (elements);
    }
  }
  if (msg != NULL)
    gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return ok ? 0 : 1;
}

int
main (int argc, char *argv[])
{
  gst_init (&argc, &argv);
  if (argc == 6 && g_str_equal (argv[1], "wav-frames"))
    return check_wav_frames (argv[2], argv[3], argv[4], argv[5]);
  if (argc == 4 && g_str_equal (argv[1], "wav-same"))
    return check_wav_same (argv[2], argv[3]);
  if (argc == 7 && g_str_equal (argv[1], "state"))
    return check_state (argv[2], argv[3], argv[4], argv[5], argv[6]);
  if (argc == 3 && g_str_equal (argv[1], "refusal"))
    return check_refusal (argv[2]);
  if (argc == 4 && g_str_equal (argv[1], "latency"))
    return check_latency (argv[2], argv[3]);
  if (argc == 5 && g_str_equal (argv[1], "observer"))
    return check_observer (argv[2], argv[3], argv[4]);
  if (argc >= 3 && g_str_equal (argv[1], "launch"))
    return run_launch (argc - 2, argv + 2);
  g_printerr ("usage: pipeline-check wav-frames FILE FRAMES RATE CHANNELS\n"
              "       pipeline-check wav-same A.wav B.wav\n"
              "       pipeline-check state FILE CAPS SAMPLES_PER_BUFFER "
              "BUFFERS HOP\n"
              "       pipeline-check refusal PIPELINE\n"
              "       pipeline-check latency PIPELINE NANOSECONDS\n"
              "       pipeline-check observer PIPELINE MODE SAMPLES\n"
              "       pipeline-check launch [-q] [-v] PIPELINE...\n");
  return 2;
}

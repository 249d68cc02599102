/* rnndenoise — long run: hours of audio per stream, faster than real time,
 * checked for drift.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pushes 10 ms buffers of a changing noisy signal (speech-like bursts over
 * noise, with silent minutes and a muted stretch) through one rnndenoise
 * element with several streams, and every audio minute checks: output
 * finite, output level per minute (printed), the recurrent state finite and
 * within [-1, 1] (from export-state), and the process's resident memory.
 * Prints "name value unit" lines and exits non-zero on NaN, an out-of-range
 * state, or memory growth after the first minute of more than 1 MiB.
 * Usage: bench_longrun [MINUTES] [STREAMS]   (default 60 minutes, 2 streams)
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gst/gst.h>

#include "state/rnn_state_quant.h"
#include "state/rnn_state_snapshot.h"

#define HOP 480
#define RATE 48000
#define BUFFERS_PER_MINUTE (60 * RATE / HOP)

typedef struct
{
  GstPad *feed;   /* owned; linked to sink_N */
  GstPad *sink;   /* owned; receives src_N */
  gdouble energy; /* output energy this minute */
  guint64 samples;
  gboolean nonfinite;
} Stream;

static GstFlowReturn
measure_buffer (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  Stream *st = gst_pad_get_element_private (pad);
  GstMapInfo map;
  gsize i, n;

  (void) parent;
  gst_buffer_map (buf, &map, GST_MAP_READ);
  n = map.size / sizeof (gfloat);
  for (i = 0; i < n; i++) {
    gfloat y = ((const gfloat *) map.data)[i];

    if (!isfinite (y))
      st->nonfinite = TRUE;
    st->energy += (gdouble) y * y;
  }
  st->samples += n;
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
drop_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  (void) pad;
  (void) parent;
  gst_event_unref (event);
  return TRUE;
}

static glong
resident_kib (void)
{
  glong pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");

  if (f != NULL) {
    if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose (f);
  }
  return resident * (sysconf (_SC_PAGESIZE) / 1024);
}

/* Minute m, buffer k: bursts of harmonics over noise; every fifth minute is
 * noise only, and the middle of every seventh minute is muted. */
static void
fill (gfloat *x, guint minute, guint k, guint stream, GRand *rand)
{
  guint i;
  gboolean speech = minute % 5 != 4;
  gboolean muted = minute % 7 == 6 && k > BUFFERS_PER_MINUTE / 3
      && k < 2 * BUFFERS_PER_MINUTE / 3;

  for (i = 0; i < HOP; i++) {
    gdouble t = ((gdouble) k * HOP + i) / RATE;
    gdouble env = speech ? MAX (0.0, sin (2 * G_PI * 0.7 * t)) : 0.0;
    gdouble f0 = 120.0 + 30.0 * stream;
    gdouble v = env * 0.3
            * (sin (2 * G_PI * f0 * t) + 0.5 * sin (2 * G_PI * 2 * f0 * t))
        + 0.03 * g_rand_double_range (rand, -1.0, 1.0);

    x[i] = muted ? 0.0f : (gfloat) v;
  }
}

static gboolean
check_state (GstElement *e, guint stream, gdouble *max_abs)
{
  gchar *name = g_strdup_printf ("sink_%u", stream);
  GBytes *bytes = NULL;
  RnnStateSnapshot *snap;
  const RnnStateDescriptor *desc;
  gfloat *values;
  gboolean ok = TRUE;
  gsize i, n;

  g_signal_emit_by_name (e, "export-state", name, &bytes);
  g_free (name);
  snap = rnn_state_snapshot_parse (g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL);
  desc = rnn_state_snapshot_get_descriptor (snap);
  n = rnn_state_descriptor_n_values (desc);
  values = g_new (gfloat, n);
  rnn_state_dequantize (desc, rnn_state_snapshot_get_hidden (snap), values);
  for (i = 0; i < n; i++) {
    if (!isfinite (values[i]) || fabsf (values[i]) > 1.0f)
      ok = FALSE;
    *max_abs = MAX (*max_abs, fabsf (values[i]));
  }
  g_free (values);
  rnn_state_snapshot_free (snap);
  g_bytes_unref (bytes);
  return ok;
}

int
main (int argc, char **argv)
{
  guint minutes = argc > 1 ? (guint) atoi (argv[1]) : 60;
  guint n_streams = argc > 2 ? (guint) atoi (argv[2]) : 2;
  GstElement *e;
  Stream *streams;
  GstCaps *caps;
  GstSegment segment;
  GRand *rand = g_rand_new_with_seed (5);
  gfloat x[HOP];
  glong rss_after_first = 0, rss;
  gdouble level_min = 1e9, level_max = -1e9, state_max = 0.0;
  gboolean failed = FALSE;
  gint64 t0;
  guint m, k, s;

  gst_init (&argc, &argv);
  e = gst_element_factory_make ("rnndenoise", NULL);
  if (e == NULL) {
    fprintf (stderr, "bench_longrun: no rnndenoise element\n");
    return 1;
  }
  streams = g_new0 (Stream, n_streams);
  caps = gst_caps_from_string ("audio/x-raw,format=F32LE,layout=interleaved,"
                               "rate=48000,channels=1");
  gst_element_set_state (e, GST_STATE_PLAYING);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  for (s = 0; s < n_streams; s++) {
    GstPad *sinkpad = gst_element_request_pad_simple (e, "sink_%u");
    gchar *src_name = g_strdup_printf ("src_%u", s);
    GstPad *srcpad = gst_element_get_static_pad (e, src_name);

    streams[s].feed = gst_pad_new ("feed", GST_PAD_SRC);
    streams[s].sink = gst_pad_new ("measure", GST_PAD_SINK);
    gst_pad_set_element_private (streams[s].sink, &streams[s]);
    gst_pad_set_chain_function (streams[s].sink, measure_buffer);
    gst_pad_set_event_function (streams[s].sink, drop_event);
    gst_pad_set_active (streams[s].sink, TRUE);
    gst_pad_link (streams[s].feed, sinkpad);
    gst_pad_link (srcpad, streams[s].sink);
    gst_pad_set_active (streams[s].feed, TRUE);
    gst_pad_push_event (streams[s].feed, gst_event_new_stream_start ("long"));
    gst_pad_push_event (streams[s].feed, gst_event_new_caps (caps));
    gst_pad_push_event (streams[s].feed, gst_event_new_segment (&segment));
    gst_object_unref (sinkpad);
    gst_object_unref (srcpad);
    g_free (src_name);
  }

  t0 = g_get_monotonic_time ();
  for (m = 0; m < minutes; m++) {
    for (k = 0; k < BUFFERS_PER_MINUTE; k++) {
      for (s = 0; s < n_streams; s++) {
        GstBuffer *buf;

        fill (x, m, k, s, rand);
        buf = gst_buffer_new_memdup (x, sizeof (x));
        GST_BUFFER_PTS (buf)
            = gst_util_uint64_scale_int ((guint64) (m * BUFFERS_PER_MINUTE + k)
                    * HOP,
                GST_SECOND, RATE);
        gst_pad_push (streams[s].feed, buf);
      }
    }
    for (s = 0; s < n_streams; s++) {
      gdouble db = 10.0
          * log10 (streams[s].energy / MAX (streams[s].samples, 1) + 1e-20);

      /* Speech minutes only: noise-only minutes are meant to go quiet. */
      if (m % 5 != 4 && m % 7 != 6) {
        level_min = MIN (level_min, db);
        level_max = MAX (level_max, db);
      }
      printf ("minute_%u_stream_%u_output_level %.2f dBFS\n", m, s, db);
      streams[s].energy = 0.0;
      streams[s].samples = 0;
      if (streams[s].nonfinite || !check_state (e, s, &state_max))
        failed = TRUE;
    }
    rss = resident_kib ();
    if (m == 0)
      rss_after_first = rss;
    printf ("minute_%u_resident_memory %ld KiB\n", m, rss);
  }

  printf ("longrun_audio_minutes_per_stream %u minutes\n", minutes);
  printf ("longrun_streams %u count\n", n_streams);
  printf ("longrun_speed %.1f x_realtime_per_stream\n",
      minutes * 60.0 / ((g_get_monotonic_time () - t0) * 1e-6));
  printf ("longrun_speech_level_spread %.2f dB\n", level_max - level_min);
  printf ("longrun_state_max_abs %.4f value\n", state_max);
  printf ("longrun_memory_growth %ld KiB\n", resident_kib () - rss_after_first);
  if (resident_kib () - rss_after_first > 1024)
    failed = TRUE;

  for (s = 0; s < n_streams; s++) {
    gst_pad_push_event (streams[s].feed, gst_event_new_eos ());
    gst_object_unref (streams[s].feed);
    gst_object_unref (streams[s].sink);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
  gst_caps_unref (caps);
  g_free (streams);
  g_rand_free (rand);
  printf ("longrun_result %s\n", failed ? "FAILED" : "ok");
  return failed ? 1 : 0;
}

/* rnndenoise — an application that embeds the element and moves a stream
 * from one pipeline to another
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: rnndenoise-embed-app [--input FILE.wav] [--output FILE.wav]
 *            [--seconds S]
 *
 * Pipeline A: source → audioconvert → audioresample → rnndenoise
 * (post-messages=true) → fakesink, where the source is audiotestsrc (S
 * seconds, 3 by default) or FILE.wav (filesrc → wavparse). The application
 * prints the element's "rnndenoise" messages (voice probability, levels)
 * from the bus. Half-way through, a blocking pad probe stops the stream at
 * a buffer boundary and the application, from its own thread, exports the
 * stream with the `export-state` action and prints the snapshot's size; then
 * pipeline A is shut down, as if its host went away.
 *
 * Pipeline B is built fresh. In READY, before any data flows, the
 * application first offers a damaged copy of the snapshot, which
 * `import-state` must refuse, then the snapshot itself, and prints whether it
 * was accepted. B then plays the same source, drops what A had already
 * processed and continues the stream from there: its first buffer starts
 * from A's recurrent state and DSP history. With --output, B's output is
 * written as WAV.
 *
 * Without --output, a third pipeline C runs the whole stream uninterrupted
 * and the application checks that A's output followed by B's is the same,
 * byte for byte: the stream moved without a trace. It exits non-zero if
 * anything fails.
 *
 * Built by meson as `rnndenoise-embed-app`; run it uninstalled with
 *   GST_PLUGIN_PATH=build/plugin build/pipelines/rnndenoise-embed-app
 */
#include "config.h"

#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#define APP_MESSAGE_BLOCKED "rnndenoise-embed-app-blocked"
#define DEFAULT_SECONDS 3.0
#define TEST_SAMPLES_PER_BUFFER 1024 /* any size works; not a frame size */
#define RATE 48000

static gchar *input_path = NULL;
static gchar *output_path = NULL;
static gdouble seconds = DEFAULT_SECONDS;

static GOptionEntry entries[] = {
  { "input", 'i', 0, G_OPTION_ARG_FILENAME, &input_path,
      "WAV file to denoise (default: a test tone)", "FILE.wav" },
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output_path,
      "Write pipeline B's output (the continued stream) to this WAV file",
      "FILE.wav" },
  { "seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
      "Length of the test tone in seconds (default 3)", "S" },
  G_OPTION_ENTRY_NULL,
};

/* One pipeline and what the probe on the element's sink pad needs. */
typedef struct
{
  const gchar *name;
  GstElement *pipeline;  /* owned */
  GstElement *denoise;   /* borrowed from the pipeline */
  GstElement *convert;   /* borrowed from the pipeline */
  guint64 block_at;      /* samples; block before this point (A), or 0 */
  guint64 skip;          /* samples to drop before the element (B) */
  guint64 seen;          /* samples that reached the probe */
  gboolean skip_aligned; /* the skip ended on a buffer boundary */
  guint n_messages;      /* "rnndenoise" messages printed */
  GByteArray *output;    /* owned, nullable: what reached the fakesink */
} Run;

#define RUN_INIT(name) \
  { \
    name, NULL, NULL, NULL, 0, 0, 0, FALSE, 0, NULL \
  }

static guint
buffer_samples (GstPad *pad, GstBuffer *buffer)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstAudioInfo info;
  guint n = 0;

  if (caps != NULL && gst_audio_info_from_caps (&info, caps) && info.bpf > 0)
    n = (guint) (gst_buffer_get_size (buffer) / info.bpf);
  if (caps != NULL)
    gst_caps_unref (caps);
  return n;
}

/* A blocking probe on the element's sink pad. Pipeline A: lets buffers
 * through until run->block_at samples have passed, then blocks and tells
 * the application. Pipeline B: drops the first run->skip samples. */
static GstPadProbeReturn
sink_probe (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  Run *run = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  guint n = buffer_samples (pad, buffer);
  GstStructure *s;

  if (run->skip > 0) {
    if (run->seen >= run->skip) {
      run->seen += n;
      return GST_PAD_PROBE_PASS;
    }
    run->seen += n;
    run->skip_aligned = run->seen == run->skip;
    return GST_PAD_PROBE_DROP;
  }
  if (run->block_at == 0 || run->seen < run->block_at) {
    run->seen += n;
    return GST_PAD_PROBE_PASS;
  }
  /* Everything before this buffer has been processed: block here. */
  s = gst_structure_new (APP_MESSAGE_BLOCKED, "samples", G_TYPE_UINT64,
      run->seen, NULL);
  gst_element_post_message (run->pipeline,
      gst_message_new_application (GST_OBJECT (run->pipeline), s));
  return GST_PAD_PROBE_OK;
}

/* fakesink's handoff: keeps a copy of every output buffer. */
static void
on_handoff (GstElement *sink, GstBuffer *buffer, GstPad *pad,
    gpointer user_data)
{
  Run *run = user_data;
  GstMapInfo map;

  (void) sink;
  (void) pad;
  if (gst_buffer_map (buffer, &map, GST_MAP_READ)) {
    g_byte_array_append (run->output, map.data, (guint) map.size);
    gst_buffer_unmap (buffer, &map);
  }
}

/* Makes an element and adds it to the run's pipeline, which owns it. */
static GstElement *
add (Run *run, const gchar *factory, GError **error)
{
  GstElement *element = gst_element_factory_make (factory, NULL);

  if (element == NULL) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_MISSING_PLUGIN,
        "no element \"%s\"; %s", factory,
        g_str_equal (factory, "rnndenoise")
            ? "build the plugin and set GST_PLUGIN_PATH to build/plugin"
            : "install gstreamer1.0-plugins-base and -good");
    return NULL;
  }
  gst_bin_add (GST_BIN (run->pipeline), element);
  return element;
}

/* Builds source → audioconvert → audioresample → rnndenoise → sink, with
 * the probe on the element's sink pad. Returns FALSE with @error set if an
 * element is missing or a link fails. */
static gboolean
build_pipeline (Run *run, const gchar *output, GError **error)
{
  GstElement *src, *parse = NULL, *capsfilter = NULL, *resample = NULL;
  GstElement *out_convert = NULL, *wavenc = NULL, *sink = NULL;
  GstPad *sinkpad, *srcpad, *peer;
  GstCaps *caps;
  gboolean ok;

  run->pipeline = gst_pipeline_new (run->name);
  if (input_path != NULL) {
    src = add (run, "filesrc", error);
    if (src != NULL) {
      g_object_set (src, "location", input_path, NULL);
      parse = add (run, "wavparse", error);
    }
  } else {
    src = add (run, "audiotestsrc", error);
    if (src != NULL) {
      g_object_set (src, "samplesperbuffer", TEST_SAMPLES_PER_BUFFER,
          "num-buffers",
          (gint) (seconds * RATE / TEST_SAMPLES_PER_BUFFER + 0.5), "freq",
          400.0, "volume", 0.3, NULL);
      capsfilter = add (run, "capsfilter", error);
    }
    if (capsfilter != NULL) {
      caps = gst_caps_new_simple ("audio/x-raw", "rate", G_TYPE_INT, RATE,
          "channels", G_TYPE_INT, 1, NULL);
      g_object_set (capsfilter, "caps", caps, NULL);
      gst_caps_unref (caps);
    }
  }
  if (parse != NULL || capsfilter != NULL)
    run->convert = add (run, "audioconvert", error);
  if (run->convert != NULL)
    resample = add (run, "audioresample", error);
  if (resample != NULL)
    run->denoise = add (run, "rnndenoise", error);
  if (run->denoise != NULL && output != NULL) {
    out_convert = add (run, "audioconvert", error);
    wavenc = out_convert != NULL ? add (run, "wavenc", error) : NULL;
    sink = wavenc != NULL ? add (run, "filesink", error) : NULL;
    if (sink != NULL)
      g_object_set (sink, "location", output, NULL);
  } else if (run->denoise != NULL) {
    sink = add (run, "fakesink", error);
    if (sink != NULL) {
      run->output = g_byte_array_new ();
      g_object_set (sink, "signal-handoffs", TRUE, NULL);
      g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), run);
    }
  }
  if (sink == NULL) {
    gst_clear_object (&run->pipeline);
    return FALSE;
  }
  g_object_set (run->denoise, "post-messages", TRUE, NULL);

  /* The element's pads: the first stream is its always pads sink and src,
   * as on any filter. */
  sinkpad = gst_element_get_static_pad (run->denoise, "sink");
  srcpad = gst_element_get_static_pad (run->denoise, "src");
  peer = gst_element_get_static_pad (resample, "src");
  ok = gst_element_link_many (src, parse != NULL ? parse : capsfilter,
           run->convert, resample, NULL)
      && gst_pad_link (peer, sinkpad) == GST_PAD_LINK_OK;
  gst_object_unref (peer);
  peer = gst_element_get_static_pad (wavenc != NULL ? out_convert : sink,
      "sink");
  ok = ok && gst_pad_link (srcpad, peer) == GST_PAD_LINK_OK
      && (wavenc == NULL
          || gst_element_link_many (out_convert, wavenc, sink, NULL));
  gst_object_unref (peer);
  gst_pad_add_probe (sinkpad,
      run->skip > 0 ? GST_PAD_PROBE_TYPE_BUFFER
                    : GST_PAD_PROBE_TYPE_BLOCK | GST_PAD_PROBE_TYPE_BUFFER,
      sink_probe, run, NULL);
  gst_object_unref (srcpad);
  gst_object_unref (sinkpad);
  if (!ok) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "could not link the elements of pipeline %s", run->name);
    gst_clear_object (&run->pipeline);
    return FALSE;
  }
  return TRUE;
}

static void
print_vad_message (Run *run, const GstStructure *s)
{
  GstClockTime ts = GST_CLOCK_TIME_NONE;
  gdouble vad = 0.0, in_db = 0.0, out_db = 0.0;
  gboolean speech = FALSE;
  guint gated = 0;

  gst_structure_get_uint64 (s, "timestamp", &ts);
  gst_structure_get_double (s, "vad", &vad);
  gst_structure_get_boolean (s, "speech", &speech);
  gst_structure_get_uint (s, "gated-frames", &gated);
  gst_structure_get_double (s, "input-rms-db", &in_db);
  gst_structure_get_double (s, "output-rms-db", &out_db);
  g_print ("  %s %s %" GST_TIME_FORMAT "  vad %.2f %-6s  in %6.1f dB  "
           "out %6.1f dB  gated %u\n",
      run->name, gst_structure_get_string (s, "pad"), GST_TIME_ARGS (ts), vad,
      speech ? "speech" : "-", in_db, out_db, gated);
  run->n_messages++;
}

/* Runs the bus until EOS, an error, or (if @blocked_at is given) the
 * probe's message that the stream is blocked half-way. Returns FALSE on an
 * error. */
static gboolean
run_bus (Run *run, guint64 *blocked_at)
{
  GstBus *bus = gst_element_get_bus (run->pipeline);
  gboolean done = FALSE, ok = TRUE;
  GstMessage *msg;
  GError *err;
  gchar *debug;

  while (!done) {
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING
            | GST_MESSAGE_ELEMENT | GST_MESSAGE_APPLICATION);
    switch (GST_MESSAGE_TYPE (msg)) {
      case GST_MESSAGE_ELEMENT:
        if (gst_message_has_name (msg, "rnndenoise"))
          print_vad_message (run, gst_message_get_structure (msg));
        break;
      case GST_MESSAGE_APPLICATION:
        if (blocked_at != NULL
            && gst_message_has_name (msg, APP_MESSAGE_BLOCKED)) {
          gst_structure_get_uint64 (gst_message_get_structure (msg), "samples",
              blocked_at);
          done = TRUE;
        }
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (msg, &err, &debug);
        g_printerr ("%s: warning from %s: %s\n", run->name,
            GST_OBJECT_NAME (msg->src), err->message);
        g_clear_error (&err);
        g_free (debug);
        break;
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (msg, &err, &debug);
        g_printerr ("%s: error from %s: %s\n%s\n", run->name,
            GST_OBJECT_NAME (msg->src), err->message, GST_STR_NULL (debug));
        g_clear_error (&err);
        g_free (debug);
        ok = FALSE;
        done = TRUE;
        break;
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        break;
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return ok;
}

/* Returns the minimum latency a latency query on @pad answers. */
static GstClockTime
query_min_latency (GstPad *pad, gboolean peer)
{
  GstQuery *query = gst_query_new_latency ();
  GstClockTime min = GST_CLOCK_TIME_NONE;

  if (peer ? gst_pad_peer_query (pad, query) : gst_pad_query (pad, query))
    gst_query_parse_latency (query, NULL, &min, NULL);
  gst_query_unref (query);
  return min;
}

/* Prints the latency rnndenoise adds: what its src answers minus what
 * the upstream of its sink answers. */
static void
print_latency (Run *run)
{
  GstPad *srcpad = gst_element_get_static_pad (run->denoise, "src");
  GstPad *sinkpad = gst_element_get_static_pad (run->denoise, "sink");
  GstClockTime total = query_min_latency (srcpad, FALSE);
  GstClockTime upstream = query_min_latency (sinkpad, TRUE);

  if (GST_CLOCK_TIME_IS_VALID (total) && GST_CLOCK_TIME_IS_VALID (upstream))
    g_print ("%s: rnndenoise adds %" GST_TIME_FORMAT " of latency\n", run->name,
        GST_TIME_ARGS (total - upstream));
  gst_object_unref (srcpad);
  gst_object_unref (sinkpad);
}

/* Frees what a run holds. */
static void
run_clear (Run *run)
{
  if (run->pipeline != NULL)
    gst_element_set_state (run->pipeline, GST_STATE_NULL);
  gst_clear_object (&run->pipeline);
  if (run->output != NULL)
    g_byte_array_unref (run->output);
  run->output = NULL;
}

/* Pipeline A: run half-way, export the stream, shut down. Keeps A's
 * output in @a_output (if collected). */
static GBytes *
run_first (guint64 *position, GByteArray **a_output, GError **error)
{
  Run run = RUN_INIT ("A");
  GBytes *snapshot = NULL;
  gint64 duration = -1;

  if (!build_pipeline (&run, NULL, error))
    return NULL;
  if (gst_element_set_state (run.pipeline, GST_STATE_PAUSED)
          == GST_STATE_CHANGE_FAILURE
      || gst_element_get_state (run.pipeline, NULL, NULL, GST_CLOCK_TIME_NONE)
          == GST_STATE_CHANGE_FAILURE) {
    run_bus (&run, NULL);
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
        "pipeline A does not start");
    goto done;
  }
  /* Block at half of the stream (the first buffer boundary past it); the
   * probe has counted every sample since the start, preroll included. */
  if (!gst_element_query_duration (run.pipeline, GST_FORMAT_TIME, &duration)
      || duration <= 0)
    duration = (gint64) (seconds * GST_SECOND);
  run.block_at
      = MAX (1, gst_util_uint64_scale (duration, RATE, 2 * GST_SECOND));
  print_latency (&run);
  g_print ("A: playing; blocking the stream after %" G_GUINT64_FORMAT
           " samples (at %d Hz)\n",
      run.block_at, RATE);
  gst_element_set_state (run.pipeline, GST_STATE_PLAYING);

  if (!run_bus (&run, position)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "pipeline A failed");
    goto done;
  }
  if (run.seen < run.block_at) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "the stream ended after %" G_GUINT64_FORMAT " samples, before "
        "half-way",
        run.seen);
    goto done;
  }

  /* Mid-run, from the application's thread: safe at any time. The stream
   * is held at a buffer boundary, so the snapshot is the state after
   * exactly *position samples. */
  g_signal_emit_by_name (run.denoise, "export-state", "sink", &snapshot);
  if (snapshot == NULL) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "export-state returned nothing");
    goto done;
  }
  g_print ("A: stream blocked after %" G_GUINT64_FORMAT " samples; "
           "export-state gave a snapshot of %" G_GSIZE_FORMAT " bytes "
           "(%u messages so far); stopping A\n",
      *position, g_bytes_get_size (snapshot), run.n_messages);
  if (run.output != NULL)
    *a_output = g_byte_array_ref (run.output);

done:
  run_clear (&run);
  return snapshot;
}

/* Pipeline B: import the snapshot in READY, then continue the stream.
 * Keeps B's output in @b_output (if collected). */
static gboolean
run_second (GBytes *snapshot, guint64 position, GByteArray **b_output,
    GError **error)
{
  Run run = RUN_INIT ("B");
  gboolean accepted = FALSE, ok = FALSE;
  GBytes *damaged;
  guint8 *bytes;
  gsize size;

  run.skip = position;
  if (!build_pipeline (&run, output_path, error))
    return FALSE;
  if (gst_element_set_state (run.pipeline, GST_STATE_READY)
      == GST_STATE_CHANGE_FAILURE) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
        "pipeline B does not reach READY");
    goto done;
  }

  /* A damaged snapshot (one byte changed) must be refused: its checksum no
   * longer matches. The refusal also posts a warning on the bus. */
  bytes = g_bytes_unref_to_data (g_bytes_ref (snapshot), &size);
  bytes[size / 2] ^= 0x5a;
  damaged = g_bytes_new_take (bytes, size);
  g_signal_emit_by_name (run.denoise, "import-state", "sink", damaged,
      &accepted);
  g_bytes_unref (damaged);
  g_print ("B: import-state with a damaged snapshot: %s\n",
      accepted ? "accepted (wrong!)" : "refused, as it should be");
  if (accepted) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "a damaged snapshot was accepted");
    goto done;
  }

  g_signal_emit_by_name (run.denoise, "import-state", "sink", snapshot,
      &accepted);
  g_print ("B: import-state in READY with the %" G_GSIZE_FORMAT "-byte "
           "snapshot: %s\n",
      g_bytes_get_size (snapshot), accepted ? "accepted" : "refused");
  if (!accepted) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "import-state refused the snapshot");
    goto done;
  }

  g_print ("B: playing; dropping the first %" G_GUINT64_FORMAT " samples "
           "(A had them) and continuing the stream\n",
      position);
  gst_element_set_state (run.pipeline, GST_STATE_PLAYING);
  if (!run_bus (&run, NULL)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "pipeline B failed");
    goto done;
  }
  if (!run.skip_aligned) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "B's buffers did not fall on sample %" G_GUINT64_FORMAT, position);
    goto done;
  }
  g_print ("B: end of stream after %" G_GUINT64_FORMAT " more samples, "
           "%u messages%s%s\n",
      run.seen - position, run.n_messages,
      output_path != NULL ? "; output written to " : "",
      output_path != NULL ? output_path : "");
  if (run.output != NULL)
    *b_output = g_byte_array_ref (run.output);
  ok = TRUE;

done:
  run_clear (&run);
  return ok;
}

/* Pipeline C: the whole stream in one go; checks that A then B gave the
 * same bytes. */
static gboolean
run_check (const GByteArray *a_output, const GByteArray *b_output,
    GError **error)
{
  Run run = RUN_INIT ("C");
  gboolean ok = FALSE;
  guint i, n;

  if (!build_pipeline (&run, NULL, error))
    return FALSE;
  g_object_set (run.denoise, "post-messages", FALSE, NULL);
  gst_element_set_state (run.pipeline, GST_STATE_PLAYING);
  if (!run_bus (&run, NULL)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "pipeline C failed");
    goto done;
  }
  n = a_output->len + b_output->len;
  if (n != run.output->len) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
        "A and B output %u bytes, the uninterrupted run %u", n,
        run.output->len);
    goto done;
  }
  for (i = 0; i < n; i++) {
    guint8 got = i < a_output->len ? a_output->data[i]
                                   : b_output->data[i - a_output->len];

    if (got != run.output->data[i]) {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "A then B differ from the uninterrupted run at byte %u of %u "
          "(A gave %u bytes)",
          i, n, a_output->len);
      goto done;
    }
  }
  g_print ("C: an uninterrupted run gives the same %u bytes as A then B: "
           "the stream moved bit-exactly\n",
      n);
  ok = TRUE;

done:
  run_clear (&run);
  return ok;
}

int
main (int argc, char *argv[])
{
  GOptionContext *context;
  GByteArray *a_output = NULL, *b_output = NULL;
  GError *error = NULL;
  GBytes *snapshot;
  guint64 position = 0;
  gboolean ok;

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
      "Denoises a stream with rnndenoise in pipeline A, exports it half-way "
      "with export-state,\nimports it into a fresh pipeline B with "
      "import-state "
      "and continues it there.");
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  ok = g_option_context_parse (context, &argc, &argv, &error);
  g_option_context_free (context);
  if (!ok || seconds < 0.1 || seconds > 3600.0) {
    g_printerr ("rnndenoise-embed-app: %s\n",
        error != NULL ? error->message : "--seconds must be in 0.1..3600");
    g_clear_error (&error);
    return 2;
  }

  snapshot = run_first (&position, &a_output, &error);
  ok = snapshot != NULL && run_second (snapshot, position, &b_output, &error);
  if (ok && a_output != NULL && b_output != NULL)
    ok = run_check (a_output, b_output, &error);
  if (!ok) {
    g_printerr ("rnndenoise-embed-app: %s\n", error->message);
    g_clear_error (&error);
  }
  if (snapshot != NULL)
    g_bytes_unref (snapshot);
  if (a_output != NULL)
    g_byte_array_unref (a_output);
  if (b_output != NULL)
    g_byte_array_unref (b_output);
  g_free (input_path);
  g_free (output_path);
  gst_deinit ();
  return ok ? 0 : 1;
}

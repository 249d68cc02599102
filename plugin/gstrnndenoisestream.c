/* rnndenoise — one stream's data flow: caps, chain, events, queries, timestamps,
 * drain and sample I/O
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "dsp/dsp_processor.h"
#include "dsp/dsp_samples.h"

#include "gstrnndenoiseprivate.h"

#define GST_CAT_DEFAULT gst_rnn_denoise_debug

static void
post_unsupported_caps (GstRnnDenoise *self, GstCaps *caps)
{
  GstCaps *supported = gst_rnn_denoise_audio_caps (self);
  gchar *got = gst_caps_to_string (caps);
  gchar *want = gst_caps_to_string (supported);

  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("rnndenoise cannot take this audio format. It takes %s. Put "
       "audioconvert ! audioresample in front of it.",
          want),
      ("got %s", got));
  g_free (got);
  g_free (want);
  gst_caps_unref (supported);
}

/* Upstream offers only formats we cannot take: negotiation is about to
 * fail with a bare "not-negotiated", so say what would work. A warning, not
 * an error: a caps query may only be probing. */
static void
warn_unsupported_caps_once (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    GstCaps *offered)
{
  GstCaps *supported;
  gchar *got, *want;

  if (pad->warned_caps)
    return;
  pad->warned_caps = TRUE;
  supported = gst_rnn_denoise_audio_caps (self);
  got = gst_caps_to_string (offered);
  want = gst_caps_to_string (supported);
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
      ("rnndenoise cannot take the audio offered to %s. It takes %s. Put "
       "audioconvert ! audioresample in front of it.",
          GST_PAD_NAME (pad), want),
      ("offered %s", got));
  g_free (got);
  g_free (want);
  gst_caps_unref (supported);
}

static void
read_settings (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    StreamSettings *settings)
{
  gdouble pad_limit, pad_threshold;

  dsp_processor_settings_init (&settings->dsp);
  GST_OBJECT_LOCK (self);
  settings->dsp.attenuation_limit_db = (gfloat) self->attenuation_limit;
  settings->dsp.speech_protection = (gfloat) self->speech_protection;
  settings->dsp.stationary_suppression = (gfloat) self->stationary_suppression;
  settings->dsp.harmonic_lift = (gfloat) self->harmonic_lift;
  settings->dsp.speech_hold = (gfloat) self->speech_hold;
  settings->dsp.level_normalization = self->level_normalization;
  settings->dsp.hum_removal = self->hum_removal;
  settings->dsp.vad_threshold = (gfloat) self->vad_threshold;
  settings->vad_hold = self->vad_hold;
  settings->reset_on_discont = self->reset_on_discont;
  settings->post_messages = self->post_messages;
  settings->message_interval = self->message_interval;
  GST_OBJECT_LOCK (pad);
  pad_limit = pad->attenuation_limit;
  pad_threshold = pad->vad_threshold;
  GST_OBJECT_UNLOCK (pad);
  GST_OBJECT_UNLOCK (self);
  if (pad_limit >= 0.0)
    settings->dsp.attenuation_limit_db = (gfloat) pad_limit;
  if (pad_threshold >= 0.0)
    settings->dsp.vad_threshold = (gfloat) pad_threshold;
}

static gfloat *
ensure_work (GstRnnDenoisePad *pad, gsize n_floats)
{
  if (pad->work_len < n_floats) {
    g_free (pad->work);
    pad->work = g_new (gfloat, n_floats);
    pad->work_len = n_floats;
  }
  return pad->work;
}

GstClockTime
gst_rnn_denoise_samples_to_time (GstRnnDenoisePad *pad, guint64 samples)
{
  return gst_util_uint64_scale_int (samples, GST_SECOND, pad->info.rate);
}

/* Timestamp of input sample @index counted from the last reset (negative
 * for samples of an imported stream that came before it), clipped at 0.
 * Output sample i carries the timestamp of input sample i. */
static GstClockTime
sample_time (GstRnnDenoisePad *pad, gint64 index)
{
  GstClockTime d;

  if (!GST_CLOCK_TIME_IS_VALID (pad->ts_base))
    return GST_CLOCK_TIME_NONE;
  if (index >= 0)
    return pad->ts_base
        + gst_rnn_denoise_samples_to_time (pad, (guint64) index);
  d = gst_rnn_denoise_samples_to_time (pad, (guint64) (-index));
  return pad->ts_base > d ? pad->ts_base - d : 0;
}

/* The first output buffer of a stream, and the first after a reset or a
 * jump in the input's timestamps, carries DISCONT. */
static void
mark_discont (GstRnnDenoisePad *pad, GstBuffer *buf)
{
  if (pad->discont_pending) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    pad->discont_pending = FALSE;
  }
}

/* Writes @n F32 interleaved samples into @buf in the stream's format.
 * Returns FALSE, with an element error, if @buf cannot be mapped. */
static gboolean
write_samples (GstRnnDenoisePad *pad, GstBuffer *buf, const gfloat *samples,
    guint n)
{
  GstMapInfo map;
  gsize total = (gsize) n * pad->info.channels;

  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (GST_PAD_PARENT (pad), RESOURCE, WRITE, (NULL),
        ("cannot map an output buffer of %s for writing", GST_PAD_NAME (pad)));
    return FALSE;
  }
  if (GST_AUDIO_INFO_FORMAT (&pad->info) == GST_AUDIO_FORMAT_F32) {
    memcpy (map.data, samples, total * sizeof (gfloat));
  } else {
    dsp_samples_to_s16 (samples, (gint16 *) map.data, total);
  }
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* Pushes @n samples as a new buffer (used for the drained tail). */
static GstFlowReturn
push_samples (GstRnnDenoisePad *pad, const gfloat *samples, guint n,
    GstClockTime pts)
{
  GstBuffer *buf;

  if (n == 0)
    return GST_FLOW_OK;
  buf = gst_buffer_new_allocate (NULL, (gsize) n * pad->info.bpf, NULL);
  if (!write_samples (pad, buf, samples, n)) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = gst_rnn_denoise_samples_to_time (pad, n);
  mark_discont (pad, buf);
  return gst_pad_push (pad->srcpad, buf);
}

static gboolean
is_silence (const gfloat *samples, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (samples[i] != 0.0f)
      return FALSE;
  return TRUE;
}

/* Pushes @n output samples in the input buffer @buf itself (it is never
 * larger than the input), so steady-state audio needs no allocation when
 * upstream lets go of its buffers. @samples NULL: the output is already in
 * @buf (processed in place), and @silent says whether it is all zero.
 * Takes ownership of @buf. */
static GstFlowReturn
push_in_input_buffer (GstRnnDenoisePad *pad, GstBuffer *buf,
    const gfloat *samples, gboolean silent, guint n, GstClockTime pts)
{
  if (n == 0) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  if (samples != NULL
      && (gsize) n * pad->info.bpf > gst_buffer_get_size (buf)) {
    /* More out than in: silence added after a mid-stream reset. */
    gst_buffer_unref (buf);
    return push_samples (pad, samples, n, pts);
  }
  buf = gst_buffer_make_writable (buf);
  gst_buffer_resize (buf, 0, (gssize) n * pad->info.bpf);
  if (samples != NULL) {
    if (!write_samples (pad, buf, samples, n)) {
      gst_buffer_unref (buf);
      return GST_FLOW_ERROR;
    }
    silent = is_silence (samples, (gsize) n * pad->info.channels);
  }
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = gst_rnn_denoise_samples_to_time (pad, n);
  GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  /* The output lags the input: a GAP buffer's output may carry the real
   * audio before it. Only silence keeps the flag. */
  if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP) && !silent)
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_GAP);
  mark_discont (pad, buf);
  return gst_pad_push (pad->srcpad, buf);
}

/* Output timestamps count samples from the first input timestamp after a
 * reset. When the input's time jumps (a gap, or a DISCONT kept with
 * reset-on-discont=false) by more than REBASE_THRESHOLD, the count restarts
 * from the new time; smaller jitter is ignored, as audio sinks do. */
#define REBASE_THRESHOLD (40 * GST_MSECOND)

static void
follow_input_time (GstRnnDenoisePad *pad, GstClockTime in_pts)
{
  GstClockTime expected, counted;

  if (!GST_CLOCK_TIME_IS_VALID (in_pts))
    return;
  if (!GST_CLOCK_TIME_IS_VALID (pad->ts_base)) {
    if (pad->in_samples == 0)
      pad->ts_base = in_pts;
    return;
  }
  expected = sample_time (pad, (gint64) pad->in_samples);
  if (in_pts + REBASE_THRESHOLD >= expected
      && in_pts <= expected + REBASE_THRESHOLD)
    return;
  counted = gst_rnn_denoise_samples_to_time (pad, pad->in_samples);
  GST_DEBUG_OBJECT (pad,
      "input time jumps from %" GST_TIME_FORMAT " to %" GST_TIME_FORMAT
      ": counting from there",
      GST_TIME_ARGS (expected), GST_TIME_ARGS (in_pts));
  pad->ts_base = in_pts > counted ? in_pts - counted : 0;
  pad->discont_pending = TRUE;
}

/* A reset or an import made by the application mid-stream replaces the
 * samples inside the processor: @lost samples of output (the in-flight
 * ones) will never come, or some will come twice if @lost is negative.
 * Keep one output sample per input sample so that timestamps and counts
 * stay exact: silence stands in for the lost ones; repeats are counted in
 * pad->surplus and dropped as they come out, in this call or later ones
 * (a buffer smaller than the repeats does not hold them all). @samples
 * has room for @lost more samples. */
static void
keep_sample_count (GstRnnDenoisePad *pad, gfloat *samples, guint *produced,
    gint64 lost)
{
  gsize ch = pad->info.channels;
  guint absorbed, skip;

  if (lost != 0)
    GST_DEBUG_OBJECT (pad,
        "state replaced mid-stream: %" G_GINT64_FORMAT
        " samples of silence (negative: repeats to drop), %u to drop before",
        lost, pad->surplus);
  if (lost > 0) {
    /* Samples due to be dropped anyway are among the lost ones. */
    absorbed = (guint) MIN ((guint64) lost, pad->surplus);
    pad->surplus -= absorbed;
    lost -= absorbed;
    memmove (samples + (gsize) lost * ch, samples,
        (gsize) *produced * ch * sizeof (gfloat));
    memset (samples, 0, (gsize) lost * ch * sizeof (gfloat));
    *produced += (guint) lost;
  } else if (lost < 0) {
    pad->surplus += (guint) (-lost);
  }
  skip = MIN (pad->surplus, *produced);
  if (skip > 0) {
    memmove (samples, samples + (gsize) skip * ch,
        (gsize) (*produced - skip) * ch * sizeof (gfloat));
    *produced -= skip;
    pad->surplus -= skip;
  }
}

/* Pushes the stream's tail (the samples still inside the processor) as if
 * silence followed, without changing the stream state. */
static GstFlowReturn
drain (GstRnnDenoisePad *pad)
{
  guint n;

  if (pad->processor == NULL || pad->held == 0)
    return GST_FLOW_OK;
  n = dsp_processor_drain (pad->processor, pad->tail);
  GST_DEBUG_OBJECT (pad, "drained %u samples, %u expected", n, pad->held);
  /* An application's reset or import-state since the last buffer changed what
   * the processor holds; repeats still to drop come out here. */
  if (n != pad->held || pad->surplus > 0)
    keep_sample_count (pad, pad->tail, &n, (gint64) pad->held - n);
  pad->held = 0;
  pad->surplus = 0;
  return push_samples (pad, pad->tail, n,
      sample_time (pad, (gint64) pad->in_samples - n));
}

/* The pad's work buffer, with room for @n samples and a latency's worth
 * more: see keep_sample_count (). */
static gfloat *
work_for (GstRnnDenoisePad *pad, guint n)
{
  return ensure_work (pad,
      (gsize) n * pad->info.channels
          + (gsize) pad->info.channels
              * dsp_processor_get_latency (pad->processor)
          + 1);
}

/* Copies the input buffer, as F32, into the pad's work buffer, where the
 * processor then writes its output in place. */
static gfloat *
input_samples (GstRnnDenoisePad *pad, GstMapInfo *map, guint n)
{
  gsize total = (gsize) n * pad->info.channels;
  gfloat *work = work_for (pad, n);

  if (GST_AUDIO_INFO_FORMAT (&pad->info) == GST_AUDIO_FORMAT_F32)
    memcpy (work, map->data, total * sizeof (gfloat));
  else
    dsp_samples_from_s16 ((const gint16 *) map->data, work, total);
  return work;
}

static guint
input_frames (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstBuffer *buf)
{
  gsize size = gst_buffer_get_size (buf);

  if (size % pad->info.bpf != 0 && !pad->warned_odd_size) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, (NULL),
        ("buffer of %" G_GSIZE_FORMAT " bytes is not a whole number of "
         "%d-byte frames; the trailing bytes are dropped",
            size, pad->info.bpf));
    pad->warned_odd_size = TRUE;
  }
  return (guint) (size / pad->info.bpf);
}

/* F32 input in a buffer we may write to (one reference, one writable
 * memory) is processed where it is: mapped for reading and writing into
 * @map. Returns FALSE, with nothing mapped, otherwise. */
static gboolean
map_in_place (GstRnnDenoisePad *pad, GstBuffer *buf, GstMapInfo *map)
{
  if (GST_AUDIO_INFO_FORMAT (&pad->info) != GST_AUDIO_FORMAT_F32
      || !gst_buffer_is_writable (buf) || gst_buffer_n_memory (buf) != 1
      || !gst_memory_is_writable (gst_buffer_peek_memory (buf, 0)))
    return FALSE;
  return gst_buffer_map (buf, map, GST_MAP_READWRITE);
}

/* Low-latency output goes aside: room for @n samples and a latency's
 * worth more (frames complete in bursts; keep_sample_count () too). */
static gfloat *
frame_output_for (GstRnnDenoisePad *pad, guint n)
{
  gsize n_floats = (gsize) n * pad->info.channels
      + (gsize) pad->info.channels * dsp_processor_get_latency (pad->processor)
      + 1;

  if (pad->frame_out_len < n_floats) {
    g_free (pad->frame_out);
    pad->frame_out = g_new (gfloat, n_floats);
    pad->frame_out_len = n_floats;
  }
  return pad->frame_out;
}

/* Low-latency holds a partial frame plus the STFT delay: more than the
 * delay alone means input that is not whole frames, which lags up to one
 * frame more. Said once per stream, with a new latency for the pipeline. */
static void
check_frame_alignment (GstRnnDenoise *self, GstRnnDenoisePad *pad, guint held)
{
  /* The STFT delay (and the model's lookahead), from the pad's own
   * processor: no model lock per buffer. */
  guint latency = dsp_processor_get_latency (pad->processor);
  guint aligned = latency - dsp_processor_get_hop (pad->processor);

  if (!pad->frame_output || g_atomic_int_get (&pad->late_frames)
      || held <= aligned)
    return;
  g_atomic_int_set (&pad->late_frames, TRUE);
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("Input on %s is not in whole 10 ms frames: low-latency output lags "
       "up to %u ms.",
          GST_PAD_NAME (pad), latency * 1000 / pad->info.rate),
      ("put audiobuffersplit output-buffer-duration=1/100 in front of "
       "rnndenoise for %u ms",
          aligned * 1000 / pad->info.rate));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_latency (GST_OBJECT (self)));
}

/* The @n samples of @buf as F32 in the pad's work buffer, or NULL (with
 * an element error) if @buf cannot be mapped. */
static gfloat *
read_input (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstBuffer *buf, guint n)
{
  GstMapInfo map;
  gfloat *samples;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL),
        ("cannot map an input buffer of %s", GST_PAD_NAME (pad)));
    return NULL;
  }
  samples = input_samples (pad, &map, n);
  gst_buffer_unmap (buf, &map);
  return samples;
}

/* Brings the controlled properties (attenuation-limit, vad-threshold) to
 * their values at the buffer's stream time, as volume does. */
static void
sync_controlled_values (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    GstClockTime pts)
{
  GstClockTime stream_time;

  if (!GST_CLOCK_TIME_IS_VALID (pts))
    return;
  stream_time
      = gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME, pts);
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (self), stream_time);
}

/* The VAD hold in whole frames of the processor's hop, rounded up. */
static guint
vad_hold_frames (GstRnnDenoisePad *pad, GstClockTime hold)
{
  guint64 samples
      = gst_util_uint64_scale_ceil (hold, pad->info.rate, GST_SECOND);
  guint hop = dsp_processor_get_hop (pad->processor);

  return (guint) MIN ((samples + hop - 1) / hop, G_MAXUINT);
}

/* The speech-protection property's -1 (the model's own) is passed on as
 * it is: the processor resolves it each time, so that going back to -1
 * undoes an earlier value. */
static void
apply_settings (GstRnnDenoisePad *pad, const StreamSettings *settings)
{
  DspProcessorSettings dsp = settings->dsp;

  dsp.vad_hold_frames = vad_hold_frames (pad, settings->vad_hold);
  dsp_processor_apply_settings (pad->processor, &dsp);
}

/* Drains the stream before an event that ends it (EOS, STREAM_START, new
 * caps): the event goes on whatever the drained tail's flow return, which
 * is only logged. */
static void
drain_before_event (GstRnnDenoisePad *pad, const gchar *what)
{
  GstFlowReturn ret = drain (pad);

  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (pad, "tail drained before %s: %s", what,
        gst_flow_get_name (ret));
}

/* A DISCONT buffer (or one after a dropped empty DISCONT buffer) drains
 * the stream and resets its state, unless reset-on-discont is FALSE.
 * Returns the drained tail's flow return. */
static GstFlowReturn
handle_discont (GstRnnDenoisePad *pad, GstBuffer *buf,
    const StreamSettings *settings)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if ((GST_BUFFER_IS_DISCONT (buf) || pad->discont_carried)
      && settings->reset_on_discont && (pad->invocation > 0 || pad->held > 0)) {
    GST_DEBUG_OBJECT (pad, "DISCONT: draining and resetting");
    ret = drain (pad);
    gst_rnn_denoise_pad_reset_stream (pad);
  }
  pad->discont_carried = FALSE;
  return ret;
}

/* Accounts for one processed buffer of @n input samples that gave
 * *@produced output samples in *@samples, with @held samples left inside
 * the processor. Output processed in place (*@in_place) that must grow
 * moves to the work buffer first (*@samples and *@in_place change).
 * Returns the timestamp of the first output sample. */
static GstClockTime
count_output (GstRnnDenoisePad *pad, gfloat **samples, gboolean *in_place,
    guint n, guint *produced, guint held)
{
  guint held_before = pad->held;
  gint64 first_out, lost;

  /* Output continues where it stopped: the first sample due is input
   * sample in_samples - held. At the start of a stream an imported state
   * may bring earlier samples (negative index): they are its own. */
  first_out = (gint64) pad->in_samples - (held_before - pad->surplus);
  lost = (gint64) held_before + n - *produced - held;
  if (*in_place && pad->invocation > 0 && lost > 0) {
    /* Silence goes in: more room than the input buffer has. */
    gfloat *work = work_for (pad, n);

    memcpy (work, *samples,
        (gsize) *produced * pad->info.channels * sizeof (gfloat));
    *samples = work;
    *in_place = FALSE;
  }
  if (pad->invocation > 0 && (lost != 0 || pad->surplus > 0))
    keep_sample_count (pad, *samples, produced, lost);
  else
    first_out = (gint64) pad->in_samples + n - held - *produced;
  pad->held = held;
  pad->invocation++;
  pad->in_samples += n;
  return sample_time (pad, first_out);
}

/* Settles what comes before processing a buffer: caps, controlled values
 * and settings (into *@settings), empty buffers, discontinuities. Returns
 * the buffer's samples per channel, or 0 when it is not to be processed,
 * with the flow return to give in *@ret (the caller then drops it). */
static guint
prepare_for_buffer (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstBuffer *buf,
    StreamSettings *settings, GstFlowReturn *ret)
{
  guint n;

  if (pad->processor == NULL || !pad->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer on %s before caps", GST_PAD_NAME (pad)));
    *ret = GST_FLOW_NOT_NEGOTIATED;
    return 0;
  }
  sync_controlled_values (self, pad, GST_BUFFER_PTS (buf));
  read_settings (self, pad, settings);
  apply_settings (pad, settings);

  *ret = GST_FLOW_OK;
  n = input_frames (self, pad, buf);
  if (n == 0) {
    /* Dropped, and changes nothing now; a discontinuity it marks is where
     * the audio resumes, at the next buffer with samples. */
    if (GST_BUFFER_IS_DISCONT (buf))
      pad->discont_carried = TRUE;
    return 0;
  }
  *ret = handle_discont (pad, buf, settings);
  /* Downstream is flushing or failed: this buffer cannot go either. */
  if (*ret == GST_FLOW_FLUSHING || *ret <= GST_FLOW_NOT_NEGOTIATED)
    return 0;
  return n;
}

/* The state side pad's part in one buffer. */
typedef struct
{
  GstPad *pad;    /* a reference, NULL if the stream has no state pad */
  GstBuffer *buf; /* NULL if no one takes the frames' states */
  GstMapInfo map; /* buf's, mapped for writing while buf is set */
} StateOutput;

/* Runs @n samples per channel from @in into @out, the frames' states into
 * a buffer acquired for the state pad (see StateOutput; the caller pushes
 * it and drops the pad's reference). Returns the samples produced. */
static guint
process_samples (GstRnnDenoise *self, GstRnnDenoisePad *pad, const gfloat *in,
    gfloat *out, guint n, StateOutput *state, DspProcessorReport *report)
{
  gboolean with_state;

  state->pad = gst_rnn_denoise_get_statepad (self, pad);
  state->buf = gst_rnn_denoise_statepad_acquire (pad, state->pad, &state->map);
  with_state = state->buf != NULL;
  /* In place unless low-latency: output index never passes input index. */
  return dsp_processor_process (pad->processor, in, out, n,
      with_state ? &pad->state_desc : NULL, with_state ? state->map.data : NULL,
      with_state ? state->map.size : 0, report);
}

/* Processes the @n samples per channel of @buf, read at @samples: mapped
 * in place (@in_map set; unmapped here) or copied out (@in_map NULL).
 * Publishes the frames' states, then pushes the audio. Takes @buf. */
static GstFlowReturn
process_and_push (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstBuffer *buf,
    GstMapInfo *in_map, gfloat *samples, guint n,
    const StreamSettings *settings)
{
  GstFlowReturn audio_ret, state_ret = GST_FLOW_OK;
  DspProcessorReport report;
  StateOutput state;
  GstClockTime in_pts = GST_BUFFER_PTS (buf), out_pts;
  gdouble in_energy = 0.0;
  gboolean state_pushed = FALSE, in_place = in_map != NULL, silent = FALSE;
  gfloat *out = pad->frame_output ? frame_output_for (pad, n) : samples;
  guint produced;

  if (settings->post_messages)
    in_energy = dsp_samples_energy (samples, (gsize) n * pad->info.channels);
  produced = process_samples (self, pad, samples, out, n, &state, &report);
  samples = out;
  check_frame_alignment (self, pad, report.held);
  out_pts = count_output (pad, &samples, &in_place, n, &produced, report.held);
  gst_rnn_denoise_warn_about_report (self, pad, &report);
  if (settings->post_messages)
    gst_rnn_denoise_account_buffer (self, pad, settings, &report, in_energy, n,
        samples, produced, out_pts);

  if (state.buf != NULL)
    state_ret = gst_rnn_denoise_statepad_push (pad, state.pad, state.buf,
        &state.map, report.frames, in_pts, n, &state_pushed);
  if (in_place)
    silent = is_silence (samples, (gsize) produced * pad->info.channels);
  if (in_map != NULL)
    gst_buffer_unmap (buf, in_map);
  audio_ret = push_in_input_buffer (pad, buf, in_place ? NULL : samples, silent,
      produced, out_pts);
  if (state.pad != NULL)
    gst_object_unref (state.pad);
  GST_LOG_OBJECT (pad, "%u in, %u out, %u frames, audio %s, state %s", n,
      produced, report.frames, gst_flow_get_name (audio_ret),
      gst_flow_get_name (state_ret));
  return gst_rnn_denoise_combine_flows (audio_ret, state_ret, state_pushed);
}

GstFlowReturn
gst_rnn_denoise_chain (GstPad *sinkpad, GstObject *parent, GstBuffer *buf)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (sinkpad);
  StreamSettings settings;
  GstFlowReturn ret;
  GstMapInfo in_map;
  gboolean mapped;
  gfloat *samples;
  guint n;

  n = prepare_for_buffer (self, pad, buf, &settings, &ret);
  if (n == 0) {
    gst_buffer_unref (buf);
    return ret;
  }
  follow_input_time (pad, GST_BUFFER_PTS (buf));
  /* Low-latency output can outgrow its input (whole frames): never in
   * place. */
  mapped = !pad->frame_output && map_in_place (pad, buf, &in_map);
  samples = mapped ? (gfloat *) in_map.data : read_input (self, pad, buf, n);
  if (samples == NULL) {
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  return process_and_push (self, pad, buf, mapped ? &in_map : NULL, samples, n,
      &settings);
}

/* Streaming thread. The processor for new caps of @channels channels at
 * @rate Hz: the one an import made before the caps built for its own model
 * and channel count, if those match, else a new one from the loaded model
 * for @rate (the streaming thread never loads a model: READY->PAUSED
 * did). */
static DspProcessor *
processor_for_caps (GstRnnDenoise *self, GstRnnDenoisePad *pad, guint rate,
    guint channels, GError **error)
{
  DspProcessor *processor = NULL;
  DspModel *model;

  g_mutex_lock (&pad->lock);
  if (!pad->have_info && pad->processor != NULL
      && dsp_processor_get_channels (pad->processor) == channels
      && dsp_model_get_frame_config (dsp_processor_get_model (pad->processor))
              ->sample_rate
          == rate)
    processor = pad->processor;
  g_mutex_unlock (&pad->lock);
  if (processor != NULL)
    return processor;
  model = gst_rnn_denoise_peek_model_for_rate (self, rate);
  if (model == NULL) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE,
        "no model loaded for %u Hz", rate);
    return NULL;
  }
  processor = dsp_processor_new (model, channels, error);
  dsp_model_unref (model);
  return processor;
}

/* Streaming thread. Makes @processor the stream's; an import accepted by
 * the old one and not applied yet moves over with it (or is dropped with a
 * warning if it does not fit the new format). */
static void
install_processor (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    DspProcessor *processor)
{
  DspProcessor *old;
  GError *error = NULL;

  g_mutex_lock (&pad->lock);
  old = pad->processor;
  if (old == processor)
    old = NULL;
  else if (old != NULL)
    dsp_processor_take_pending_import (processor, old, &error);
  pad->processor = processor;
  g_mutex_unlock (&pad->lock);
  dsp_processor_free (old);
  if (error != NULL) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("The state set on %s does not fit its new format and was dropped.",
            GST_PAD_NAME (pad)),
        ("%s", error->message));
    g_clear_error (&error);
  }
}

/* New caps: a caps change drains the old stream and starts from the
 * initial state with a new processor, which takes over an import that had
 * not reached the stream yet. */
static gboolean
handle_caps (GstRnnDenoise *self, GstRnnDenoisePad *pad, GstCaps *caps)
{
  GstCaps *supported = gst_rnn_denoise_audio_caps (self);
  DspProcessor *processor;
  GError *error = NULL;
  GstAudioInfo info;
  gboolean ok;

  ok = gst_caps_can_intersect (caps, supported)
      && gst_audio_info_from_caps (&info, caps);
  gst_caps_unref (supported);
  if (!ok) {
    post_unsupported_caps (self, caps);
    return FALSE;
  }
  if (pad->have_info && gst_audio_info_is_equal (&info, &pad->info))
    return TRUE;

  if (pad->have_info) {
    drain_before_event (pad, "new caps");
    GST_DEBUG_OBJECT (pad, "caps changed: new stream state");
  }
  processor = processor_for_caps (self, pad, (guint) info.rate, info.channels,
      &error);
  if (processor == NULL) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT, (NULL), ("%s", error->message));
    g_clear_error (&error);
    return FALSE;
  }
  install_processor (self, pad, processor);
  GST_OBJECT_LOCK (self);
  pad->frame_output = self->low_latency;
  GST_OBJECT_UNLOCK (self);
  dsp_processor_set_frame_output (processor, pad->frame_output);
  if (g_atomic_int_get (&pad->late_frames)) {
    /* A new stream: whole frames again until seen otherwise. */
    g_atomic_int_set (&pad->late_frames, FALSE);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }

  pad->info = info;
  pad->have_info = TRUE;
  g_free (pad->tail);
  pad->tail = g_new0 (gfloat,
      (gsize) dsp_processor_get_latency (processor) * info.channels);
  gst_rnn_denoise_pad_restart_counts (pad);
  pad->state_negotiated = FALSE;
  pad->warned_odd_size = FALSE;
  gst_rnn_denoise_stats_reset (&pad->stats);
  GST_DEBUG_OBJECT (pad, "caps %" GST_PTR_FORMAT, caps);
  return gst_pad_push_event (pad->srcpad, gst_event_new_caps (caps));
}

gboolean
gst_rnn_denoise_sink_event (GstPad *sinkpad, GstObject *parent, GstEvent *event)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (sinkpad);
  GstCaps *caps;
  gboolean ret;

  GST_DEBUG_OBJECT (pad, "%" GST_PTR_FORMAT, event);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      gst_event_parse_caps (event, &caps);
      ret = handle_caps (self, pad, caps);
      gst_event_unref (event);
      return ret;
    case GST_EVENT_STREAM_START:
      drain_before_event (pad, "STREAM_START");
      gst_rnn_denoise_pad_reset_stream (pad);
      pad->state_needs_events = TRUE;
      break;
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event, &pad->segment);
      gst_rnn_denoise_statepad_push_event (self, pad, event);
      break;
    case GST_EVENT_FLUSH_START:
      gst_rnn_denoise_statepad_push_event (self, pad, event);
      break;
    case GST_EVENT_FLUSH_STOP:
      gst_rnn_denoise_pad_reset_stream (pad);
      gst_rnn_denoise_statepad_push_event (self, pad, event);
      break;
    case GST_EVENT_EOS:
      drain_before_event (pad, "EOS");
      if (pad->stats.samples > 0) {
        StreamSettings settings;

        read_settings (self, pad, &settings);
        if (settings.post_messages)
          gst_rnn_denoise_post_stats (self, pad, &settings);
      }
      gst_rnn_denoise_statepad_push_eos (self, pad, event);
      break;
    default:
      break;
  }
  /* Everything else (GAP included) goes to this stream's source pad only,
   * never to the other streams' pads as the default handler would. */
  return gst_pad_push_event (pad->srcpad, event);
}

gboolean
gst_rnn_denoise_sink_query (GstPad *sinkpad, GstObject *parent, GstQuery *query)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = GST_RNN_DENOISE_PAD (sinkpad);
  GstCaps *filter, *ours, *peer, *result;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      gst_query_parse_caps (query, &filter);
      ours = gst_rnn_denoise_audio_caps (self);
      peer = gst_pad_peer_query_caps (pad->srcpad, ours);
      result = filter != NULL
          ? gst_caps_intersect_full (filter, peer, GST_CAPS_INTERSECT_FIRST)
          : gst_caps_ref (peer);
      if (filter != NULL && gst_caps_is_empty (result))
        warn_unsupported_caps_once (self, pad, filter);
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      gst_caps_unref (peer);
      gst_caps_unref (ours);
      return TRUE;
    case GST_QUERY_ACCEPT_CAPS: {
      GstCaps *caps;
      gboolean ok;

      gst_query_parse_accept_caps (query, &caps);
      ours = gst_rnn_denoise_audio_caps (self);
      ok = gst_caps_is_subset (caps, ours);
      gst_caps_unref (ours);
      if (!ok)
        warn_unsupported_caps_once (self, pad, caps);
      gst_query_set_accept_caps_result (query, ok);
      return TRUE;
    }
    default:
      /* Allocation and the rest belong to this stream's downstream. */
      return gst_pad_peer_query (pad->srcpad, query);
  }
}

gboolean
gst_rnn_denoise_src_query (GstPad *srcpad, GstObject *parent, GstQuery *query)
{
  GstRnnDenoise *self = GST_RNN_DENOISE (parent);
  GstRnnDenoisePad *pad = gst_pad_get_element_private (srcpad);
  GstClockTime min, max, ours;
  gboolean live;
  GstCaps *filter, *caps, *peer, *result;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:
      if (!gst_pad_peer_query (GST_PAD (pad), query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      ours = gst_rnn_denoise_latency (self, pad);
      GST_DEBUG_OBJECT (srcpad, "adding %" GST_TIME_FORMAT " of latency",
          GST_TIME_ARGS (ours));
      gst_query_set_latency (query, live, min + ours,
          GST_CLOCK_TIME_IS_VALID (max) ? max + ours : GST_CLOCK_TIME_NONE);
      return TRUE;
    case GST_QUERY_CAPS:
      gst_query_parse_caps (query, &filter);
      caps = gst_rnn_denoise_audio_caps (self);
      peer = gst_pad_peer_query_caps (GST_PAD (pad), caps);
      result = filter != NULL
          ? gst_caps_intersect_full (filter, peer, GST_CAPS_INTERSECT_FIRST)
          : gst_caps_ref (peer);
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      gst_caps_unref (peer);
      gst_caps_unref (caps);
      return TRUE;
    default:
      return gst_pad_peer_query (GST_PAD (pad), query);
  }
}

gboolean
gst_rnn_denoise_src_event (GstPad *srcpad, GstObject *parent, GstEvent *event)
{
  GstRnnDenoisePad *pad = gst_pad_get_element_private (srcpad);

  (void) parent;
  return gst_pad_push_event (GST_PAD (pad), event);
}

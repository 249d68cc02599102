/* rnndenoise — VAD and level accounting, and the bus messages
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>

#include "gstrnndenoiseprivate.h"
#include "dsp/dsp_samples.h"

#define GST_CAT_DEFAULT gst_rnn_denoise_debug

void
gst_rnn_denoise_stats_reset (MessageStats *stats)
{
  memset (stats, 0, sizeof (*stats));
  stats->start = GST_CLOCK_TIME_NONE;
  stats->vad_max = -1.0f;
}

void
gst_rnn_denoise_post_stats (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const StreamSettings *settings)
{
  MessageStats *st = &pad->stats;
  gsize n = st->samples * pad->info.channels;
  gsize n_in = st->in_samples * pad->info.channels;
  gdouble in_db, out_db, vad_mean;
  GstClockTime duration = gst_rnn_denoise_samples_to_time (pad, st->samples);
  GstStructure *s;

  in_db = 10.0 * log10 (n_in > 0 ? st->in_energy / n_in + 1e-20 : 1e-20);
  out_db = 10.0 * log10 (n > 0 ? st->out_energy / n + 1e-20 : 1e-20);
  vad_mean = st->vad_frames > 0 ? st->vad_sum / st->vad_frames : 0.0;
  s = gst_structure_new ("rnndenoise", "pad", G_TYPE_STRING, GST_PAD_NAME (pad),
      "timestamp", G_TYPE_UINT64, st->start, "stream-time", G_TYPE_UINT64,
      gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME, st->start),
      "running-time", G_TYPE_UINT64,
      gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME, st->start),
      "duration", G_TYPE_UINT64, duration, "vad", G_TYPE_DOUBLE,
      (gdouble) MAX (st->vad_max, 0.0f), "vad-mean", G_TYPE_DOUBLE, vad_mean,
      "speech", G_TYPE_BOOLEAN,
      st->vad_max >= (settings->dsp.vad_threshold > 0.0f
              ? settings->dsp.vad_threshold
              : 0.5f),
      "gated-frames", G_TYPE_UINT, st->gated_frames, "input-rms-db",
      G_TYPE_DOUBLE, in_db, "output-rms-db", G_TYPE_DOUBLE, out_db, NULL);
  gst_rnn_denoise_stats_reset (st);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Accumulates one buffer's figures; posts a message per interval. */
void
gst_rnn_denoise_account_buffer (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const StreamSettings *settings, const DspProcessorReport *report,
    gdouble in_energy, guint n_in, const gfloat *out, guint n_out,
    GstClockTime out_pts)
{
  MessageStats *st = &pad->stats;

  if (!GST_CLOCK_TIME_IS_VALID (st->start))
    st->start = out_pts;
  st->samples += n_out;
  st->in_samples += n_in;
  st->in_energy += in_energy;
  st->out_energy
      += dsp_samples_energy (out, (gsize) n_out * pad->info.channels);
  if (report->frames > 0) {
    st->vad_max = MAX (st->vad_max, report->vad_max);
    st->vad_sum += report->vad_mean * report->frames;
    st->vad_frames += report->frames;
    st->gated_frames += report->gated_frames;
  }
  if (gst_rnn_denoise_samples_to_time (pad, st->samples)
      >= settings->message_interval)
    gst_rnn_denoise_post_stats (self, pad, settings);
}

void
gst_rnn_denoise_warn_about_report (GstRnnDenoise *self, GstRnnDenoisePad *pad,
    const DspProcessorReport *report)
{
  if (report->nonfinite_samples > 0)
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("Non-finite audio samples on %s were replaced by silence.",
            GST_PAD_NAME (pad)),
        ("%u NaN or infinite samples", report->nonfinite_samples));
  if (report->state_resets > 0)
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("The recurrent state of %s became non-finite and was reset.",
            GST_PAD_NAME (pad)),
        ("%u frames", report->state_resets));
}

/* rnndenoise — GStreamer element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RNN_DENOISE_H__
#define __GST_RNN_DENOISE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/*
 * Locking (see the field comments in gstrnndenoise.c):
 *
 * - The element's OBJECT_LOCK guards its properties, its model pointer and
 *   the links between sink pads and state pads.
 * - A sink pad's OBJECT_LOCK guards its per-pad property overrides.
 * - A sink pad's `lock` (a GMutex) guards its processor pointer and the
 *   pending import bytes: application threads (get-state, set-state, reset)
 *   take it to use the processor while the streaming thread may replace it.
 * - The sink pad's STREAM_LOCK (held by GStreamer around chain and event
 *   calls) covers the rest of the per-pad streaming data.
 *
 * Lock order: element OBJECT_LOCK, then pad OBJECT_LOCK, then the pad's
 * `lock`; never the reverse. No lock is held while pushing, posting a
 * message or emitting a signal. The state slot inside each processor has a
 * lock of its own, taken last and briefly.
 */

#define GST_TYPE_RNN_DENOISE (gst_rnn_denoise_get_type ())
G_DECLARE_FINAL_TYPE (GstRnnDenoise, gst_rnn_denoise, GST, RNN_DENOISE,
    GstElement)

#define GST_TYPE_RNN_DENOISE_PAD (gst_rnn_denoise_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstRnnDenoisePad, gst_rnn_denoise_pad, GST,
    RNN_DENOISE_PAD, GstPad)

GST_ELEMENT_REGISTER_DECLARE (rnndenoise);

G_END_DECLS

#endif /* __GST_RNN_DENOISE_H__ */

/* rnndenoise — GStreamer element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_RNN_DENOISE_H__
#define __GST_RNN_DENOISE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The instance structs, who owns what and the lock order are in
 * gstrnndenoiseprivate.h. */

#define GST_TYPE_RNN_DENOISE (gst_rnn_denoise_get_type ())
G_DECLARE_FINAL_TYPE (GstRnnDenoise, gst_rnn_denoise, GST, RNN_DENOISE,
    GstElement)

#define GST_TYPE_RNN_DENOISE_PAD (gst_rnn_denoise_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstRnnDenoisePad, gst_rnn_denoise_pad, GST,
    RNN_DENOISE_PAD, GstPad)

GST_ELEMENT_REGISTER_DECLARE (rnndenoise);

G_END_DECLS

#endif /* __GST_RNN_DENOISE_H__ */

/* rnndenoise — plugin registration
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gst/gst.h>

#include "gstrnndenoise.h"

static gboolean
plugin_init (GstPlugin *plugin)
{
  return GST_ELEMENT_REGISTER (rnndenoise, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, rnndenoise,
    "Speech denoising with a recurrent network whose state is explicit",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)

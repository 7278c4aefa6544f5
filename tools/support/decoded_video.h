// Linking a uridecodebin's video to the rest of its branch: the first raw video
// pad it exposes goes to the branch, and a source without any video is an
// error on the bus rather than a pipeline that waits for ever.
#pragma once

#include <gst/gst.h>

namespace vmafexact::tools {

// Connects both handlers below to `decoder` (a uridecodebin or decodebin):
// its first raw video pad is linked to the sink pad of `branch_head`.
void link_decoded_video(GstElement* decoder, GstElement* branch_head);

// "pad-added": the first raw video pad goes to `branch_head`'s sink pad; audio
// and further video streams are left unlinked (the decoder drops them).
void link_video_pad(GstElement* decoder, GstPad* pad, gpointer branch_head);

// What link_video_pad() does for any media type: `pad` goes to `head`'s sink
// pad when its caps are `media_type` and that sink is still free; a failed
// link posts an error naming `what` ("decoded video", "compressed video").
void link_pad_of_type(GstElement* decoder, GstPad* pad, GstElement* head, const char* media_type,
                      const char* what);

// "no-more-pads": all streams found; a branch without video posts an error.
void check_video_found(GstElement* decoder, gpointer branch_head);

}  // namespace vmafexact::tools

// A host emulation of the VIF twin's kernels, for tests without a GPU: the
// plan, the ScaleParams and the tile phases of the device path (the same
// functions), run block by block and, inside a block, thread by thread for each
// phase before the next (the kernel's barriers). Shared memory and the pyramid
// start filled with garbage, so a read of something never written shows.
#pragma once

#include "common/picture.h"
#include "vif/vif.h"
#include "vif/vif_cuda_plan.h"

namespace vmafexact::cuda::vif {

// The accumulators the kernels would return for one frame (luma planes).
vmafexact::vif::FrameSums emulate_frame(const VifPlan& plan, unsigned bpc,
                                        const vmafexact::vif::VifParams& options,
                                        const PlaneView& ref, const PlaneView& dist);

}  // namespace vmafexact::cuda::vif

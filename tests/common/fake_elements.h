// Stand-ins for another plugin's elements (nvcodec's NVDEC decoders and its
// CUDA memory transfers) where the machine has no such hardware: registered
// in the test process only, so that the code that looks for them by klass,
// pad templates and caps features finds them.
#pragma once

#include <gst/gst.h>

namespace vmafexact::test {

// A bin with the given klass and pad templates and, where `inner` is set (an
// element's name or a launch line), that chain inside between ghost pads so
// that frames flow; without it the bin has no pads (enough for code that
// reads templates only). Specs are constants: the type keeps a pointer.
struct FakeBinSpec {
  const char* name;
  const char* klass;
  const char* sink_caps;
  const char* src_caps;
  const char* inner = nullptr;
};

// A transform whose caps go from `sink_feature` to `src_feature` (a memory
// label such as memory:CUDAMemory), its buffers passed on untouched.
struct FakeRelabelSpec {
  const char* name;
  const char* sink_feature;
  const char* src_feature;
};

// Register with `plugin` (nullptr: without a plugin) at `rank`. A name
// already registered is left as it is and counts as success.
bool register_fake_bin(GstPlugin* plugin, const FakeBinSpec& spec, guint rank = GST_RANK_NONE);
bool register_fake_relabel(GstPlugin* plugin, const FakeRelabelSpec& spec);

}  // namespace vmafexact::test

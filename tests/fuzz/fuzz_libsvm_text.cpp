// Fuzz target: libsvm's model text as libvmaf's svm.cpp reads it (the
// "model" string of a JSON model file), on its own so the fuzzer need not
// build JSON around it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "model/model_data.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    vmafexact::model::parse_libsvm_text(text, "fuzz.json");
  } catch (const vmafexact::Error&) {
  }
  return 0;
}

// Fuzz target: a libvmaf JSON model file (the JSON reader, the fields libvmaf
// reads, the libsvm text inside, the checks of what both loaders build), and a
// prediction with whatever model loads. Anything but vmafexact::Error escaping
// is a bug (libFuzzer reports the uncaught exception as a crash).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "model/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto model = vmafexact::model::load_model_json(text, "fuzz.json");
    const std::vector<double> values(model.features().size(), 0.5);
    model.predict(values, {});
    model.predict(values, {true, true});
  } catch (const vmafexact::Error&) {
  }
  return 0;
}

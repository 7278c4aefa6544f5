// Fuzz target: a libvmaf JSON model file or bootstrap collection (the JSON
// reader, the fields libvmaf reads, the libsvm text inside, the checks of what
// both loaders build), and a prediction with whatever model loads, and a
// collection's statistics. Anything but vmafexact::Error escaping
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
    const auto file = vmafexact::model::load_model_json_or_collection(text, "fuzz.json");
    const std::vector<double> values(file.model.features().size(), 0.5);
    file.model.predict(values, {});
    file.model.predict(values, {true, true});
    std::vector<double> unfinished;
    for (const auto& member : file.bootstrap) {
      const std::vector<double> inputs(member.features().size(), 0.5);
      unfinished.push_back(member.predict_unfinished(inputs));
      member.finish(unfinished.back(), {});
    }
    if (!file.bootstrap.empty())
      vmafexact::model::bootstrap_scores(unfinished, file.bootstrap.front(), {});
  } catch (const vmafexact::Error&) {
  }
  return 0;
}

// Fuzz target: the element's model property (a comma-separated list of
// built-in names or paths with :name=, :disable_clip, :enable_transform and
// feature overloads :EXTRACTOR.OPTION=VALUE) and loading the built-in models it
// names, with their overloads. Paths are parsed but not opened: the
// fuzzer must not read the machine's files (model files have their own target).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "request.h"
#include "scorer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<vmafexact::ModelSpec> builtin;
    for (auto& spec : vmafexact::parse_model_list(text))
      if (!spec.is_path) builtin.push_back(std::move(spec));
    vmafexact::load_models(builtin);
  } catch (const vmafexact::Error&) {
  }
  return 0;
}

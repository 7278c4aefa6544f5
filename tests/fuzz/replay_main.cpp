// Replays inputs through a fuzz target without libFuzzer: every file named on
// the command line, or every file in a folder named there. The build runs the
// targets this way over their seed corpora and the crashes that fuzzing found
// (tests/fuzz/corpus/<target>/), so CI checks them with any compiler.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool replay_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned replayed = 0;
  bool ok = argc > 1;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path(argv[i]);
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path))
        if (entry.is_regular_file()) {
          ok &= replay_file(entry.path());
          ++replayed;
        }
    } else {
      ok &= replay_file(path);
      ++replayed;
    }
  }
  std::printf("%u inputs replayed without a crash\n", replayed);
  return ok && replayed > 0 ? 0 : 1;
}

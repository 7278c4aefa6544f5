// Fuzz target: y4m files as the vmafexact tool reads them
// (tools/support/y4m.h): the header line, then the frame lines and the
// frames, through a temporary file. Every input either reads or throws
// Y4mError; frames are read only where they are small (no input makes the
// target allocate more than a few MiB).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "support/y4m.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using vmafexact::tools::Y4mError;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto newline = text.find('\n');
  try {
    vmafexact::tools::parse_y4m_header(text.substr(0, newline));
  } catch (const Y4mError&) {
  }
  char path[] = "/tmp/vmafexact-fuzz-y4m-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) std::abort();
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) std::abort();
    written += static_cast<std::size_t>(n);
  }
  close(fd);
  try {
    vmafexact::tools::Y4mReader reader(path);
    if (reader.header().frame_bytes <= (4u << 20)) {
      std::vector<std::uint8_t> frame(reader.header().frame_bytes);
      while (reader.read_frame(frame.data())) {
      }
    }
  } catch (const Y4mError&) {
  }
  unlink(path);
  return 0;
}

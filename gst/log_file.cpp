#include "log_file.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace vmafexact::gst {

std::string make_temporary_beside(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path folder =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string leaf(".");
  leaf.append(target.filename().string()).append(".XXXXXX");
  std::string name = (folder / leaf).string();
  // 0666 less the umask, as any new file: g_mkstemp's 0600 would leave the
  // log renamed into place readable by its owner only.
  const int fd = g_mkstemp_full(name.data(), O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0) return {};
  ::close(fd);
  return name;
}

bool log_folder_writable(const std::string& path) {
  const std::string temporary = make_temporary_beside(path);
  if (temporary.empty()) return false;
  g_remove(temporary.c_str());
  return true;
}

bool write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body) {
  const std::string temporary = make_temporary_beside(path);
  if (temporary.empty()) return false;
  bool ok = false;
  {
    std::ofstream out(temporary, std::ios::out | std::ios::trunc);
    if (out) {
      body(out);
      out.flush();
      out.close();
      ok = static_cast<bool>(out);
    }
  }
  if (ok) ok = std::rename(temporary.c_str(), path.c_str()) == 0;
  if (!ok) g_remove(temporary.c_str());
  return ok;
}

}  // namespace vmafexact::gst

#include "manifest.h"

#include "errors.h"

namespace vmafexact::cli {

Manifest read_manifest(const std::string& path) {
  throw CliError(kExitUsage, "manifests are not read yet: " + path);
}

Manifest parse_manifest(std::string_view, const std::string& name, const std::string&) {
  throw CliError(kExitUsage, "manifests are not read yet: " + name);
}

const std::vector<std::string>& manifest_option_columns() {
  static const std::vector<std::string> none;
  return none;
}

Shard parse_shard(std::string_view) { throw CliError(kExitUsage, "--shard is not read yet"); }

std::optional<Shard> shard_from_environment(const std::function<const char*(const char*)>&) {
  return std::nullopt;
}

}  // namespace vmafexact::cli

// Fuzz target: `vmafexact batch`'s manifest (tools/vmafexact/manifest.h) and
// --shard. The first byte picks the file name and so the format: 'c' a .csv,
// 'j' a .jsonl, anything else a name without extension (the format from the
// first character). Any bytes either parse or throw CliError, nothing else
// (an escaping exception ends the program, which libFuzzer reports). Beyond
// not crashing it checks what the batch relies on:
//  - an error is kExitUsage, one line, naming the file;
//  - an accepted manifest's rows are numbered 0..n-1 in line order, with ids
//    that are file names, unique, not "summary"; ref and dist absolute; option
//    columns among manifest_option_columns(), flags "true" or "false", extra
//    columns named x-NAME; no value empty;
//  - parse_shard on the same bytes gives 0 <= index < count or refuses.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "vmafexact/errors.h"
#include "vmafexact/manifest.h"

namespace cli = vmafexact::cli;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

bool is_id(const std::string& id) {
  const auto alnum = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  return !id.empty() && id.size() <= cli::kManifestMaxIdBytes && alnum(id.front()) &&
         std::all_of(id.begin(), id.end(),
                     [&](char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; });
}

void check_manifest(std::string_view text, const std::string& name) {
  cli::Manifest manifest;
  try {
    manifest = cli::parse_manifest(text, name, "/base");
  } catch (const cli::CliError& error) {
    const std::string_view message = error.what();
    check(error.code() == cli::kExitUsage);
    check(message.starts_with(name + ":"));
    check(message.find('\n') == std::string_view::npos);
    return;
  }
  check(manifest.path == name);
  const std::vector<std::string>& options = cli::manifest_option_columns();
  std::set<std::string> ids;
  std::size_t previous_line = 0;
  for (std::size_t i = 0; i < manifest.rows.size(); ++i) {
    const cli::ManifestRow& row = manifest.rows[i];
    check(row.position == i);
    check(row.line > previous_line);
    previous_line = row.line;
    check(is_id(row.id) && row.id != cli::kManifestReservedId);
    check(ids.insert(row.id).second);
    check(row.ref.starts_with('/') && row.dist.starts_with('/'));
    for (const auto& [option, value] : row.options) {
      check(std::binary_search(options.begin(), options.end(), option));
      check(!value.empty());
      if (cli::manifest_column_is_flag(option)) check(value == "true" || value == "false");
    }
    for (const auto& [column, value] : row.extra)
      check(column.size() > 2 && column.starts_with("x-") && !value.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string name = data[0] == 'c'   ? "fuzz.csv"
                           : data[0] == 'j' ? "fuzz.jsonl"
                                            : "fuzz";
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check_manifest(text, name);
  try {
    const cli::Shard shard = cli::parse_shard(text);
    check(shard.count >= 1 && shard.index < shard.count && shard.source == "--shard");
  } catch (const cli::CliError& error) {
    check(error.code() == cli::kExitUsage);
  }
  return 0;
}

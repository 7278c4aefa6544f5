// `vmafexact batch`'s manifest: the pairs to score, one row each, as CSV (a
// header row holding at least id,ref,dist) or JSON Lines (objects with the same
// keys), and the share of them one task of a job array scores (docs/tool.md,
// "Batch").
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact::cli {

// One pair. Further columns are the tool's long options (without "--"; '_'
// read as '-'), given to that row's run; an empty cell gives none.
struct ManifestRow {
  std::size_t position = 0;  // 0-based among the manifest's rows, in file order
  std::size_t line = 0;      // 1-based line where the row starts in the file
  std::string id;            // a file name: [A-Za-z0-9][A-Za-z0-9._-]*, at most 128 bytes
  std::string ref, dist;     // resolved against the manifest's folder unless absolute
  // (option, value) in column order: "model" -> "path/to/model.json", ...; a
  // flag without a value (no-scale) holds "true" or "false".
  std::vector<std::pair<std::string, std::string>> options;
  // Columns named x-NAME: the user's own, carried into the row's record and
  // the merged summary, never given to the tool.
  std::vector<std::pair<std::string, std::string>> extra;
};

struct Manifest {
  std::string path;
  std::vector<ManifestRow> rows;
};

// Reads and checks a manifest: the format from the extension (.csv; .jsonl,
// .ndjson) or else the first character that is not blank ('{': JSON Lines).
// Throws CliError: kExitInput for a file that cannot be read, kExitUsage for
// what it holds (naming the file, the line and the fix).
Manifest read_manifest(const std::string& path);
// The same on text already read; `base_dir` resolves relative paths.
Manifest parse_manifest(std::string_view text, const std::string& name,
                        const std::string& base_dir);

// The tool options a manifest column may name (sorted); the others are refused.
const std::vector<std::string>& manifest_option_columns();
// Whether an option column is a flag (no-scale, no-rate-conversion): its value
// is "true" (give --NAME) or "false" (give nothing).
bool manifest_column_is_flag(std::string_view column);

// Limits against a mistaken or hostile file, each refused with its own error.
inline constexpr std::size_t kManifestMaxBytes = std::size_t{256} << 20;
inline constexpr std::size_t kManifestMaxCellBytes = std::size_t{64} << 10;
inline constexpr std::size_t kManifestMaxLineBytes = std::size_t{1} << 20;  // a JSON Lines line
inline constexpr std::size_t kManifestMaxColumns = 256;
inline constexpr std::size_t kManifestMaxRows = 2'000'000;
inline constexpr std::size_t kManifestMaxIdBytes = 128;
// merge's output is DIR/summary.{csv,json}; no row's log may take its name.
inline constexpr std::string_view kManifestReservedId = "summary";

// One task's share: rows whose position % count == index.
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  std::string source;  // "--shard", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", or "" (all)
};

// --shard I/N (0 <= I < N); throws CliError(kExitUsage) otherwise.
Shard parse_shard(std::string_view text);
// The scheduler's task index, read through `getenv`: Slurm's
// SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN, _MAX, _STEP and _COUNT; a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX with VMAFEXACT_SHARD_COUNT
// (the Job's completions, which Kubernetes does not put in the environment).
// nullopt when neither is set; throws CliError(kExitUsage) when they are
// inconsistent (an array given as a list, an index out of range, a count
// missing).
std::optional<Shard> shard_from_environment(
    const std::function<const char*(const char*)>& getenv);
inline bool in_shard(const ManifestRow& row, const Shard& shard) {
  return row.position % shard.count == shard.index;
}

}  // namespace vmafexact::cli

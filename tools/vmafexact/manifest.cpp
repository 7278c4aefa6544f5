#include "manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "errors.h"
#include "support/printable.h"
#include "support/unique_fd.h"

namespace vmafexact::cli {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kExtraPrefix = "x-";
constexpr const char* kExampleAdvice =
    "a CSV manifest starts with a header row naming at least id, ref and dist, e.g. "
    "'id,ref,dist,model' then 'clip1,ref/clip1.y4m,enc/clip1_crf23.mp4,vmaf_v0.6.1'; a JSON "
    "Lines manifest holds one object a line, e.g. "
    "{\"id\": \"clip1\", \"ref\": \"ref/clip1.y4m\", \"dist\": \"enc/clip1_crf23.mp4\"}";
constexpr const char* kQuotingAdvice =
    "a cell holding a comma, a quote or a line break is written in quotes (\"a,b\"), and a quote "
    "inside it twice (\"say \"\"hi\"\"\")";

// Text from the file as a message shows it: on one line, not too long.
std::string shown(std::string_view text) { return tools::printable(text, 120); }

std::string in_quotes(std::string_view text) {
  std::string out(1, '\'');
  out += shown(text);
  out += '\'';
  return out;
}

// "MANIFEST:LINE: problem" (line 0: the file as a whole), with the fix as advice.
[[noreturn]] void fail(const std::string& name, std::size_t line, const std::string& problem,
                       std::string advice = {}) {
  std::string message = shown(name);
  if (line > 0) message += ":" + std::to_string(line);
  throw CliError(kExitUsage, message + ": " + problem, std::move(advice));
}

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A decimal number of digits only (no sign, no blank), without overflow.
std::optional<std::size_t> parse_count(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

const std::vector<std::string>& flag_columns() {
  static const std::vector<std::string> flags = {"no-rate-conversion", "no-scale"};
  return flags;
}

// Tool options a row may not set: the batch sets them for every row.
bool is_batch_wide_option(std::string_view column) {
  static const std::vector<std::string_view> batch_wide = {
      "json",        "xml",     "csv",     "sub",         "jsonl",
      "plot",        "html",    "threads", "quiet",       "progress",
      "no-progress", "version", "ladder",  "plot-scores", "worst-frames"};
  return std::find(batch_wide.begin(), batch_wide.end(), column) != batch_wide.end();
}

std::string accepted_columns() {
  std::string list = "the columns are id, ref, dist (required), ";
  for (const std::string& option : manifest_option_columns()) list += option + ", ";
  list += "and x-NAME for your own (kept in the row's record, not given to the tool)";
  return list;
}

// What a column holds, from its name in the header or a JSON key.
struct Column {
  enum class Kind { kId, kRef, kDist, kOption, kFlag, kExtra };
  Kind kind = Kind::kOption;
  std::string name;  // '_' read as '-' (in x-NAME only the prefix): "no-scale", "x-crf"
};

Column classify_column(std::string_view written, const std::string& file, std::size_t line) {
  const std::string_view trimmed = trim_blanks(written);
  if (trimmed.empty())
    fail(file, line, "a column has no name", "name every column: " + accepted_columns());
  if (trimmed.find('\0') != std::string_view::npos)
    fail(file, line, "a column name holds a NUL character", accepted_columns());
  Column column;
  if (trimmed.size() >= 2 && trimmed[0] == 'x' && (trimmed[1] == '-' || trimmed[1] == '_')) {
    if (trimmed.size() == 2)
      fail(file, line, "the column 'x-' has no name after its prefix",
           "name your own columns x-NAME, e.g. x-crf");
    column.kind = Column::Kind::kExtra;
    column.name = std::string(kExtraPrefix) + std::string(trimmed.substr(2));
    return column;
  }
  column.name = std::string(trimmed);
  std::replace(column.name.begin(), column.name.end(), '_', '-');
  if (column.name == "id") {
    column.kind = Column::Kind::kId;
  } else if (column.name == "ref") {
    column.kind = Column::Kind::kRef;
  } else if (column.name == "dist") {
    column.kind = Column::Kind::kDist;
  } else if (std::binary_search(manifest_option_columns().begin(), manifest_option_columns().end(),
                                column.name)) {
    column.kind =
        manifest_column_is_flag(column.name) ? Column::Kind::kFlag : Column::Kind::kOption;
  } else if (is_batch_wide_option(column.name)) {
    fail(file, line, "the column " + in_quotes(column.name) + " cannot be set per row",
         "give --" + column.name +
             " to vmafexact batch if it applies to every row (a row's log is always "
             "DIR/{id}.json); " +
             accepted_columns());
  } else {
    const std::string lower = lower_ascii(column.name);
    const bool known_lowercase = lower == "id" || lower == "ref" || lower == "dist" ||
                                 lower.starts_with(kExtraPrefix) ||
                                 std::binary_search(manifest_option_columns().begin(),
                                                    manifest_option_columns().end(), lower);
    fail(file, line, "unknown column " + in_quotes(column.name),
         (known_lowercase ? "column names are lowercase (" + in_quotes(lower) + "); "
                          : std::string{}) +
             accepted_columns());
  }
  return column;
}

// true/false, 1/0, yes/no (any case, as spreadsheets write TRUE): "true" or "false".
std::optional<std::string> parse_flag(std::string_view value) {
  const std::string lower = lower_ascii(trim_blanks(value));
  if (lower == "true" || lower == "1" || lower == "yes") return "true";
  if (lower == "false" || lower == "0" || lower == "no") return "false";
  return std::nullopt;
}

bool is_valid_id(std::string_view id) {
  const auto id_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  if (id.empty() || id.size() > kManifestMaxIdBytes || !id_char(id.front())) return false;
  return std::all_of(id.begin(), id.end(),
                     [&](char c) { return id_char(c) || c == '.' || c == '_' || c == '-'; });
}

// A cell's value as read, with how it was written (JSON Lines keeps the type).
struct Value {
  enum class Type { kText, kNumber, kBool };
  Type type = Type::kText;
  std::string text;
};

// Builds one row from its cells, each checked, then the row as a whole.
class RowBuilder {
 public:
  RowBuilder(const std::string& file, std::size_t line, std::filesystem::path base_dir)
      : file_(file), line_(line), base_dir_(std::move(base_dir)) {
    row_.line = line;
  }

  // An empty value (or JSON null: not called) gives nothing.
  void add(const Column& column, const Value& value) {
    if (value.text.find('\0') != std::string::npos)
      fail(file_, line_, column.name + " holds a NUL character",
           "a manifest's values are text without NUL characters");
    if (value.type == Value::Type::kBool && column.kind != Column::Kind::kFlag &&
        column.kind != Column::Kind::kExtra)
      fail(file_, line_, column.name + " is " + value.text + ", not a value it takes",
           "write " + column.name + " as a string");
    switch (column.kind) {
      case Column::Kind::kId:
        has_id_ = true;
        row_.id = value.text;
        break;
      case Column::Kind::kRef:
      case Column::Kind::kDist: {
        if (value.type != Value::Type::kText)
          fail(file_, line_, column.name + " is " + value.text + ", not a path",
               "write " + column.name + " as a string: the file's path");
        std::string& path = column.kind == Column::Kind::kRef ? row_.ref : row_.dist;
        (column.kind == Column::Kind::kRef ? has_ref_ : has_dist_) = true;
        path = value.text.empty() ? std::string{} : resolved(value.text);
        break;
      }
      case Column::Kind::kFlag: {
        if (value.text.empty()) return;
        const std::optional<std::string> flag = parse_flag(value.text);
        if (!flag)
          fail(file_, line_, column.name + " is " + in_quotes(value.text) + ", not true or false",
               "write " + column.name + " as true or false (also 1/0, yes/no), or leave it empty");
        row_.options.emplace_back(column.name, *flag);
        break;
      }
      case Column::Kind::kOption:
        if (!value.text.empty()) row_.options.emplace_back(column.name, value.text);
        break;
      case Column::Kind::kExtra:
        if (!value.text.empty()) row_.extra.emplace_back(column.name, value.text);
        break;
    }
  }

  ManifestRow finish() {
    std::string missing;
    for (const auto& [given, name] :
         {std::pair{has_id_, "id"}, {has_ref_, "ref"}, {has_dist_, "dist"}})
      if (!given) missing += missing.empty() ? name : std::string(", ") + name;
    if (!missing.empty()) fail(file_, line_, "the row has no " + missing, kExampleAdvice);
    if (row_.id.empty())
      fail(file_, line_, "the id is empty", "give every row an id, e.g. clip1 or title42_crf23");
    if (!is_valid_id(row_.id))
      fail(file_, line_, "the id " + in_quotes(row_.id) + " is not a file name the batch can use",
           "an id is a letter or digit, then letters, digits, '.', '_' or '-', at most " +
               std::to_string(kManifestMaxIdBytes) + " bytes (the row's log is DIR/{id}.json)");
    if (row_.id == kManifestReservedId)
      fail(file_, line_, "the id 'summary' is reserved",
           "vmafexact merge writes DIR/summary.csv and DIR/summary.json: name the row otherwise");
    if (row_.ref.empty())
      fail(file_, line_, "ref is empty", "give the reference video's path for every row");
    if (row_.dist.empty())
      fail(file_, line_, "dist is empty", "give the distorted video's path for every row");
    return std::move(row_);
  }

 private:
  std::string resolved(const std::string& written) const {
    const std::filesystem::path path(written);
    if (path.is_absolute() || base_dir_.empty()) return path.lexically_normal().string();
    return (base_dir_ / path).lexically_normal().string();
  }

  const std::string& file_;
  std::size_t line_;
  std::filesystem::path base_dir_;
  ManifestRow row_;
  bool has_id_ = false, has_ref_ = false, has_dist_ = false;
};

// Adds rows, checking their count and that ids are unique.
class RowCollector {
 public:
  RowCollector(Manifest& manifest) : manifest_(manifest) {}

  void add(ManifestRow row) {
    if (manifest_.rows.size() >= kManifestMaxRows)
      fail(manifest_.path, row.line,
           "more than " + std::to_string(kManifestMaxRows) + " rows in one manifest",
           "split the catalogue into several manifests, each scored into its own folder");
    const auto [first, added] = first_lines_.try_emplace(row.id, row.line);
    if (!added)
      fail(manifest_.path, row.line,
           "the id " + in_quotes(row.id) + " is given twice: lines " +
               std::to_string(first->second) + " and " + std::to_string(row.line),
           "ids name each row's log (DIR/{id}.json): make them unique");
    row.position = manifest_.rows.size();
    manifest_.rows.push_back(std::move(row));
  }

 private:
  Manifest& manifest_;
  // Ordered: no hash an input could make collide (n log n at worst).
  std::map<std::string, std::size_t> first_lines_;
};

// ---------------------------------------------------------------- CSV

// RFC 4180 records: cells split on commas, quoted cells with doubled quotes,
// commas and line breaks; records end with CRLF, LF or a lone CR.
class CsvReader {
 public:
  struct Record {
    std::size_t line = 0;  // where the record starts
    std::vector<std::string> cells;
    bool blank = false;  // a blank line, or cells all empty and unquoted
  };

  CsvReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  bool next(Record& record) {
    if (at_ >= text_.size()) return false;
    record.line = line_;
    record.cells.clear();
    bool any_quoted = false;
    while (true) {
      std::string cell;
      if (at_ < text_.size() && text_[at_] == '"') {
        any_quoted = true;
        read_quoted(cell);
      } else {
        const std::size_t end = std::min(text_.find_first_of(",\r\n\"", at_), text_.size());
        if (end < text_.size() && text_[end] == '"')
          fail(file_, line_, "a quote inside a cell that does not start with one", kQuotingAdvice);
        check_size(end - at_);
        cell.assign(text_.substr(at_, end - at_));
        at_ = end;
      }
      record.cells.push_back(std::move(cell));
      if (record.cells.size() > kManifestMaxColumns)
        fail(file_, record.line,
             "more than " + std::to_string(kManifestMaxColumns) + " cells in one row",
             kQuotingAdvice);
      if (at_ >= text_.size()) break;
      const char separator = text_[at_++];
      if (separator == ',') continue;
      if (separator == '\r' && at_ < text_.size() && text_[at_] == '\n') ++at_;
      ++line_;
      break;
    }
    record.blank = !any_quoted &&
                   std::all_of(record.cells.begin(), record.cells.end(),
                               [](const std::string& cell) { return trim_blanks(cell).empty(); });
    return true;
  }

 private:
  void read_quoted(std::string& cell) {
    const std::size_t start_line = line_;
    ++at_;  // the opening quote
    while (true) {
      const std::size_t quote = text_.find('"', at_);
      if (quote == std::string_view::npos)
        fail(file_, start_line, "a quoted cell is not closed", kQuotingAdvice);
      const std::string_view chunk = text_.substr(at_, quote - at_);
      count_line_breaks(chunk);
      check_size(cell.size() + chunk.size());
      cell.append(chunk);
      at_ = quote + 1;
      if (at_ < text_.size() && text_[at_] == '"') {  // a doubled quote: one in the cell
        cell += '"';
        ++at_;
        continue;
      }
      break;
    }
    if (at_ < text_.size() && text_[at_] != ',' && text_[at_] != '\r' && text_[at_] != '\n')
      fail(file_, line_, "text after a quoted cell's closing quote", kQuotingAdvice);
  }

  // Lines as editors count them: CRLF, LF or a lone CR each end one.
  void count_line_breaks(std::string_view chunk) {
    for (std::size_t i = 0; i < chunk.size(); ++i)
      if (chunk[i] == '\n' || (chunk[i] == '\r' && (i + 1 == chunk.size() || chunk[i + 1] != '\n')))
        ++line_;
  }

  void check_size(std::size_t size) const {
    if (size > kManifestMaxCellBytes)
      fail(file_, line_, "a cell longer than " + std::to_string(kManifestMaxCellBytes) + " bytes",
           "a cell holds a path or an option's value; " + std::string(kQuotingAdvice));
  }

  std::string_view text_;
  const std::string& file_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
};

void parse_csv(std::string_view text, const std::filesystem::path& base_dir, Manifest& manifest) {
  const std::string& file = manifest.path;
  CsvReader reader(text, file);
  CsvReader::Record record;
  std::vector<Column> columns;
  std::size_t header_line = 0;
  while (reader.next(record)) {
    if (record.blank) continue;
    header_line = record.line;
    break;
  }
  if (header_line == 0)
    fail(file, 0, "the manifest is empty: it has no header row", kExampleAdvice);
  std::map<std::string, std::size_t> column_numbers;
  for (const std::string& cell : record.cells) {
    Column column = classify_column(cell, file, header_line);
    const auto [first, added] = column_numbers.try_emplace(column.name, columns.size() + 1);
    if (!added)
      fail(file, header_line,
           "the column " + in_quotes(column.name) + " is named twice (columns " +
               std::to_string(first->second) + " and " + std::to_string(columns.size() + 1) + ")",
           "name each column once ('_' reads as '-')");
    columns.push_back(std::move(column));
  }
  std::string missing;
  for (const char* required : {"id", "ref", "dist"})
    if (!column_numbers.contains(required))
      missing += (missing.empty() ? "'" : ", '") + std::string(required) + "'";
  if (!missing.empty())
    fail(file, header_line, "the header row has no " + missing + " column", kExampleAdvice);

  RowCollector collector(manifest);
  while (reader.next(record)) {
    if (record.blank) continue;
    if (record.cells.size() != columns.size())
      fail(file, record.line,
           std::to_string(record.cells.size()) + " cells where the header (line " +
               std::to_string(header_line) + ") has " + std::to_string(columns.size()) + " columns",
           std::string("every row has a cell for each column (an empty one gives nothing); ") +
               kQuotingAdvice);
    RowBuilder builder(file, record.line, base_dir);
    for (std::size_t i = 0; i < columns.size(); ++i)
      builder.add(columns[i], Value{Value::Type::kText, std::move(record.cells[i])});
    collector.add(builder.finish());
  }
}

// ---------------------------------------------------------------- JSON Lines

// One line's object, read through nlohmann's SAX parser: scalars only, so a
// nested value stops the parse at once (no depth to exhaust).
class LineObjectReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  struct Entry {
    std::string key;
    std::optional<Value> value;  // nullopt: null
  };
  std::vector<Entry> entries;
  std::string error;  // why the parse stopped, when it did

  bool null() override { return scalar(std::nullopt); }
  bool boolean(bool value) override {
    return scalar(Value{Value::Type::kBool, value ? "true" : "false"});
  }
  bool number_integer(number_integer_t value) override {
    return scalar(Value{Value::Type::kNumber, std::to_string(value)});
  }
  bool number_unsigned(number_unsigned_t value) override {
    return scalar(Value{Value::Type::kNumber, std::to_string(value)});
  }
  bool number_float(number_float_t, const string_t& written) override {
    return scalar(Value{Value::Type::kNumber, written});  // as written: 1.50 stays 1.50
  }
  bool string(string_t& value) override {
    return scalar(Value{Value::Type::kText, std::move(value)});
  }
  bool binary(binary_t&) override { return refuse("binary values are not JSON"); }
  bool start_object(std::size_t) override {
    if (depth_ > 0)
      return refuse(in_quotes(key_) + " is an object; values are strings, numbers or true/false");
    depth_ = 1;
    return true;
  }
  bool key(string_t& name) override {
    if (entries.size() >= kManifestMaxColumns)
      return refuse("more than " + std::to_string(kManifestMaxColumns) + " keys in one object");
    if (!keys_.insert(name).second) return refuse("the key " + in_quotes(name) + " is given twice");
    key_ = std::move(name);
    return true;
  }
  bool end_object() override {
    depth_ = 0;
    return true;
  }
  bool start_array(std::size_t) override {
    return refuse(depth_ == 0 ? "the line is an array, not an object"
                              : in_quotes(key_) +
                                    " is an array; values are strings, numbers or true/false");
  }
  bool end_array() override { return false; }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& exception) override {
    // "[json.exception.parse_error.101] parse error at line 1, column 4: ..." without its tag
    std::string_view what = exception.what();
    if (const std::size_t tag_end = what.find("] "); tag_end != std::string_view::npos)
      what.remove_prefix(tag_end + 2);
    if (what.starts_with("parse error at line 1, ")) what.remove_prefix(23);
    return refuse("not valid JSON: " + shown(what));
  }

 private:
  bool scalar(std::optional<Value> value) {
    if (depth_ == 0) return refuse("the line is a JSON value, not an object");
    entries.push_back({key_, std::move(value)});
    return true;
  }
  bool refuse(std::string why) {
    if (error.empty()) error = std::move(why);
    return false;
  }

  int depth_ = 0;
  std::string key_;
  std::set<std::string> keys_;
};

void parse_json_lines(std::string_view text, const std::filesystem::path& base_dir,
                      Manifest& manifest) {
  const std::string& file = manifest.path;
  RowCollector collector(manifest);
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.size() > kManifestMaxLineBytes)
      fail(file, line_number,
           "a line longer than " + std::to_string(kManifestMaxLineBytes) + " bytes",
           "a JSON Lines manifest holds one object of a few keys a line");
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;

    LineObjectReader reader;
    const bool parsed = nlohmann::json::sax_parse(line, &reader);
    if (!parsed || !reader.error.empty()) {
      fail(file, line_number, reader.error.empty() ? "not a JSON object" : reader.error,
           std::string("each line is one JSON object, e.g. ") +
               "{\"id\": \"clip1\", \"ref\": \"ref/clip1.y4m\", \"dist\": \"enc/clip1.mp4\"}; "
               "blank lines and lines starting with # are skipped");
    }
    RowBuilder builder(file, line_number, base_dir);
    std::set<std::string> names;  // "no_scale" and "no-scale" are one key
    for (const LineObjectReader::Entry& entry : reader.entries) {
      const Column column = classify_column(entry.key, file, line_number);
      if (!names.insert(column.name).second)
        fail(file, line_number, "the key " + in_quotes(column.name) + " is given twice",
             "give each key once ('_' reads as '-')");
      if (entry.value) builder.add(column, *entry.value);
    }
    collector.add(builder.finish());
  }
}

bool is_json_lines(std::string_view text, const std::string& name) {
  const std::string extension = lower_ascii(std::filesystem::path(name).extension().string());
  if (extension == ".csv") return false;
  if (extension == ".jsonl" || extension == ".ndjson") return true;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

std::string too_large(std::size_t size) {
  return "the manifest is larger than " + std::to_string(kManifestMaxBytes >> 20) + " MiB" +
         (size > 0 ? " (" + std::to_string(size) + " bytes)" : std::string{});
}

constexpr const char* kTooLargeAdvice =
    "split the catalogue into several manifests, each scored into its own folder";

using Descriptor = tools::UniqueFd;

// Refuses what is not a file to read: a folder, a device, a socket.
void check_file_type(const std::string& path, mode_t mode) {
  const char* what = S_ISDIR(mode)                     ? "a folder"
                     : S_ISCHR(mode)                   ? "a character device"
                     : S_ISBLK(mode)                   ? "a block device"
                     : S_ISSOCK(mode)                  ? "a socket"
                     : S_ISREG(mode) || S_ISFIFO(mode) ? nullptr
                                                       : "not a regular file";
  if (what)
    throw CliError(kExitInput, "cannot read the manifest " + in_quotes(path) + ": it is " + what,
                   "name a CSV or JSON Lines file (a pipe works too)");
}

[[noreturn]] void fail_to_read(const std::string& path, int error) {
  throw CliError(kExitInput,
                 "cannot read the manifest " + in_quotes(path) + ": " + std::strerror(error),
                 error == ENOENT   ? "check the path (relative paths start at the current folder)"
                 : error == EACCES ? "make the file readable for this user"
                                   : "");
}

}  // namespace

const std::vector<std::string>& manifest_option_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names = {"model",         "features",
                                      "subsample",     "scale-method",
                                      "scale-flags",   "dist-delay",
                                      "start",         "frames",
                                      "duration",      "align",
                                      "align-range",   "size",
                                      "ref-size",      "dist-size",
                                      "format",        "ref-format",
                                      "dist-format",   "framerate",
                                      "ref-framerate", "dist-framerate",
                                      "no-scale",      "no-rate-conversion",
                                      "precision",     "backend"};
    std::sort(names.begin(), names.end());
    return names;
  }();
  return columns;
}

bool manifest_column_is_flag(std::string_view column) {
  const std::vector<std::string>& flags = flag_columns();
  return std::find(flags.begin(), flags.end(), column) != flags.end();
}

Manifest parse_manifest(std::string_view text, const std::string& name,
                        const std::string& base_dir) {
  Manifest manifest;
  manifest.path = name;
  if (text.size() > kManifestMaxBytes) fail(name, 0, too_large(text.size()), kTooLargeAdvice);
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  if (is_json_lines(text, name))
    parse_json_lines(text, base_dir, manifest);
  else
    parse_csv(text, base_dir, manifest);
  return manifest;
}

Manifest read_manifest(const std::string& path) {
  if (path.empty())
    throw CliError(kExitUsage, "the manifest's path is empty", "name a CSV or JSON Lines file");
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) fail_to_read(path, errno);
  check_file_type(path, info.st_mode);  // before open(): opening a device may act on it
  Descriptor file(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) fail_to_read(path, errno);
  if (fstat(file.get(), &info) != 0) fail_to_read(path, errno);
  check_file_type(path, info.st_mode);  // the path may have changed in between
  if (S_ISREG(info.st_mode) && static_cast<std::uintmax_t>(info.st_size) > kManifestMaxBytes)
    fail(path, 0, too_large(static_cast<std::size_t>(info.st_size)), kTooLargeAdvice);

  std::string text;
  if (S_ISREG(info.st_mode)) text.reserve(static_cast<std::size_t>(info.st_size));
  constexpr std::size_t kChunk = 1 << 16;
  while (true) {
    const std::size_t old_size = text.size();
    text.resize(old_size + kChunk);
    const ssize_t got = read(file.get(), text.data() + old_size, kChunk);
    if (got < 0) {
      const int error = errno;
      text.resize(old_size);
      if (error == EINTR) continue;
      fail_to_read(path, error);
    }
    text.resize(old_size + static_cast<std::size_t>(got));
    if (got == 0) break;
    if (text.size() > kManifestMaxBytes) fail(path, 0, too_large(0), kTooLargeAdvice);
  }

  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) absolute = path;
  return parse_manifest(text, path, absolute.lexically_normal().parent_path().string());
}

Shard parse_shard(std::string_view text) {
  const std::size_t slash = text.find('/');
  const std::optional<std::size_t> index =
      slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(0, slash));
  const std::optional<std::size_t> count =
      slash == std::string_view::npos ? std::nullopt : parse_count(text.substr(slash + 1));
  if (!index || !count)
    throw CliError(kExitUsage, "--shard " + in_quotes(text) + " is not I/N",
                   "write the 0-based index I of N shards in digits, e.g. --shard 0/4 to "
                   "--shard 3/4 for four tasks");
  if (*count == 0)
    throw CliError(kExitUsage, "--shard " + in_quotes(text) + ": the count is 0",
                   "the count N of --shard I/N is at least 1");
  if (*index >= *count)
    throw CliError(kExitUsage, "--shard " + in_quotes(text) + ": the index is not below the count",
                   "indexes start at 0: for " + std::to_string(*count) + " shards, --shard 0/" +
                       std::to_string(*count) + " to --shard " + std::to_string(*count - 1) + "/" +
                       std::to_string(*count));
  return Shard{*index, *count, "--shard"};
}

std::optional<Shard> shard_from_environment(const std::function<const char*(const char*)>& getenv) {
  // An empty variable counts as not set.
  const auto variable = [&](const char* name) -> std::optional<std::string_view> {
    const char* value = getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string_view(value);
  };
  const auto number = [&](const char* name, std::string_view value, const std::string& advice) {
    const std::optional<std::size_t> parsed = parse_count(value);
    if (!parsed)
      throw CliError(kExitUsage, std::string(name) + "=" + in_quotes(value) + " is not a number",
                     advice);
    return *parsed;
  };

  if (const auto task_id = variable("SLURM_ARRAY_TASK_ID")) {
    const std::string advice =
        "vmafexact batch numbers a Slurm array's tasks 0..N-1 from SLURM_ARRAY_TASK_ID, _MIN, "
        "_MAX, _STEP and _COUNT: submit it with sbatch --array=A-B[:S][%M] (e.g. "
        "--array=0-9%4), not a list such as --array=1,4,9, or pass --shard I/N";
    const auto required = [&](const char* name) {
      const auto value = variable(name);
      if (!value)
        throw CliError(kExitUsage,
                       "SLURM_ARRAY_TASK_ID is set but " + std::string(name) + " is not", advice);
      return number(name, *value, advice);
    };
    const std::size_t id = number("SLURM_ARRAY_TASK_ID", *task_id, advice);
    const std::size_t min = required("SLURM_ARRAY_TASK_MIN");
    const std::size_t max = required("SLURM_ARRAY_TASK_MAX");
    const std::size_t count = required("SLURM_ARRAY_TASK_COUNT");
    const auto step_text = variable("SLURM_ARRAY_TASK_STEP");
    const std::size_t step = step_text ? number("SLURM_ARRAY_TASK_STEP", *step_text, advice) : 1;
    const std::string values = "SLURM_ARRAY_TASK_ID=" + std::to_string(id) +
                               " (MIN=" + std::to_string(min) + ", MAX=" + std::to_string(max) +
                               ", STEP=" + std::to_string(step) +
                               ", COUNT=" + std::to_string(count) + ")";
    if (step == 0 || count == 0 || min > max || id < min || id > max)
      throw CliError(kExitUsage, values + " does not describe a task of an array", advice);
    if ((id - min) % step != 0 || (max - min) / step != count - 1)
      throw CliError(kExitUsage,
                     values +
                         ": the array's tasks are not MIN, MIN+STEP, ..., MAX (an array "
                         "given as a list?)",
                     advice);
    return Shard{(id - min) / step, count, "SLURM_ARRAY_TASK_ID"};
  }

  const auto shard_count = variable("VMAFEXACT_SHARD_COUNT");
  if (const auto completion_index = variable("JOB_COMPLETION_INDEX")) {
    const std::string advice =
        "set VMAFEXACT_SHARD_COUNT to the Indexed Job's completions in its pod template "
        "(Kubernetes does not pass them), or pass --shard $(JOB_COMPLETION_INDEX)/N";
    if (!shard_count)
      throw CliError(kExitUsage, "JOB_COMPLETION_INDEX is set but VMAFEXACT_SHARD_COUNT is not",
                     advice);
    const std::size_t index = number("JOB_COMPLETION_INDEX", *completion_index, advice);
    const std::size_t count = number("VMAFEXACT_SHARD_COUNT", *shard_count, advice);
    if (count == 0 || index >= count)
      throw CliError(kExitUsage,
                     "JOB_COMPLETION_INDEX=" + std::to_string(index) +
                         " is not below VMAFEXACT_SHARD_COUNT=" + std::to_string(count),
                     "VMAFEXACT_SHARD_COUNT must equal the Job's completions (at least 1)");
    return Shard{index, count, "JOB_COMPLETION_INDEX"};
  }
  // A count without an index: every task would score every row.
  if (shard_count)
    throw CliError(kExitUsage,
                   "VMAFEXACT_SHARD_COUNT=" + in_quotes(*shard_count) +
                       " is set but JOB_COMPLETION_INDEX is not",
                   "run under a Kubernetes Job with completionMode: Indexed, pass --shard I/N, "
                   "or unset VMAFEXACT_SHARD_COUNT to score every row");
  return std::nullopt;
}

}  // namespace vmafexact::cli

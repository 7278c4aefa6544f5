#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <set>

#include "options.h"
#include "support/handles.h"
#include "support/unique_fd.h"

namespace vmafexact::monitor_tool {
namespace {

using tools::ErrorPtr;
using tools::GCharPtr;
using KeyFilePtr = std::unique_ptr<GKeyFile, tools::Releaser<GKeyFile, g_key_file_unref>>;
using StrvPtr = std::unique_ptr<gchar*, tools::Releaser<gchar*, g_strfreev>>;

using Descriptor = tools::UniqueFd;

constexpr std::string_view kChannelPrefix = "channel ";
constexpr std::string_view kPropertyPrefix = "property.";
constexpr const char* kMonitorKeys =
    "listen, jsonl, restart-delay, restart-delay-max, stall-timeout, property.NAME";
constexpr const char* kChannelKeys =
    "ref, dist, pipeline, ref-offset, dist-offset, scale-flags, property.NAME, enabled";
constexpr const char* kDurationFix = "write a duration such as 250ms, 1.5s, 40000us or 0";

// Where a problem is: the file, and the line, group and key where known.
struct Where {
  explicit Where(const std::string& file, int line = 0, std::string group = {},
                 std::string key = {})
      : file(file), line(line), group(std::move(group)), key(std::move(key)) {}
  const std::string& file;
  int line;
  std::string group;
  std::string key;
};

// Text from the file as a message shows it: on one line, not too long.
std::string shown(std::string_view text) { return printable(text, 120); }

std::string quoted(std::string_view text) {
  std::string out(1, '\'');
  out += shown(text);
  out += '\'';
  return out;
}

[[noreturn]] void fail(const Where& where, const std::string& problem, const std::string& fix) {
  std::string message = where.file;
  if (where.line > 0) message += ":" + std::to_string(where.line);
  message += ": ";
  if (!where.group.empty()) {
    message += "[" + shown(where.group) + "]";
    message += where.key.empty() ? ": " : " " + shown(where.key) + ": ";
  }
  message += problem + "; " + fix;
  throw ConfigError(message);
}

// The lines of `text`, as GKeyFile splits them (on \n; a \r before it is
// dropped), each a view into `text`.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && g_ascii_isspace(text.front())) text.remove_prefix(1);
  while (!text.empty() && g_ascii_isspace(text.back())) text.remove_suffix(1);
  return text;
}

bool load_key_file(GKeyFile* key_file, std::string_view text, GError** error) {
  // Translations (KEY[LOCALE]) are kept so that they are seen, and refused,
  // as unknown keys rather than dropped without a word.
  return g_key_file_load_from_data(key_file, text.data(), text.size(), G_KEY_FILE_KEEP_TRANSLATIONS,
                                   error);
}

// GLib's parse errors do not say where: the first line whose prefix of the
// file GKeyFile refuses (its errors are per line, so the search is sound).
int failing_line(std::string_view text) {
  std::vector<std::size_t> ends;  // each line's end, its \n included
  for (std::size_t at = text.find('\n'); at != std::string_view::npos; at = text.find('\n', at + 1))
    ends.push_back(at + 1);
  if (ends.empty() || ends.back() != text.size()) ends.push_back(text.size());
  std::size_t good = 0, bad = ends.size();  // lines: prefix of `good` loads, of `bad` does not
  while (bad - good > 1) {
    const std::size_t middle = good + (bad - good) / 2;
    KeyFilePtr probe(g_key_file_new());
    if (load_key_file(probe.get(), text.substr(0, ends[middle - 1]), nullptr))
      good = middle;
    else
      bad = middle;
  }
  return static_cast<int>(bad);
}

// Where each group header and key is in the file, read as GKeyFile reads a
// file it accepted: GKeyFile merges repeated groups and keeps the last of
// repeated keys, so repetitions are found here.
struct Layout {
  struct Header {
    std::string name;
    int line;
  };
  std::vector<Header> headers;
  std::map<std::pair<std::string, std::string>, int> key_lines;  // (group, key): first line
  struct Repeat {
    std::string group, key;
    int first_line, line;
  };
  std::vector<Repeat> repeated_keys;

  int header_line(const std::string& group) const {
    for (const Header& header : headers)
      if (header.name == group) return header.line;
    return 0;
  }
  int key_line(const std::string& group, const std::string& key) const {
    const auto found = key_lines.find({group, key});
    return found == key_lines.end() ? 0 : found->second;
  }
};

Layout scan_layout(std::string_view text) {
  Layout layout;
  std::string group;
  int number = 0;
  for (std::string_view line : split_lines(text)) {
    ++number;
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') {
      const std::size_t close = line.rfind(']');
      group = std::string(line.substr(1, close == std::string_view::npos ? 0 : close - 1));
      layout.headers.push_back({group, number});
      continue;
    }
    const std::string key(trim(line.substr(0, line.find('='))));
    const auto [at, added] = layout.key_lines.try_emplace({group, key}, number);
    if (!added) layout.repeated_keys.push_back({group, key, at->second, number});
  }
  return layout;
}

// GObject treats '-' and '_' in property names alike.
std::string canonical_property(std::string_view name) {
  std::string canonical(name);
  std::replace(canonical.begin(), canonical.end(), '_', '-');
  return canonical;
}

// Reads one group's values, each checked, with errors naming their line.
class GroupReader {
 public:
  GroupReader(GKeyFile* key_file, const Layout& layout, const std::string& file, std::string group)
      : key_file_(key_file), layout_(layout), file_(file), group_(std::move(group)) {}

  Where where(const std::string& key) const {
    return Where{file_, layout_.key_line(group_, key), group_, key};
  }
  Where where_group() const { return Where{file_, layout_.header_line(group_), group_, {}}; }

  // The value without the spaces after it (GKeyFile drops those before it),
  // then unescaped as g_key_file_get_string does: \s \n \t \r \\. Done
  // here because GLib 2.74 sets its GError twice (a warning on standard error)
  // for a value with both a bad escape and a backslash at its end.
  std::string text(const std::string& key) const {
    GCharPtr raw_value(g_key_file_get_value(key_file_, group_.c_str(), key.c_str(), nullptr));
    std::string_view value = raw_value ? raw_value.get() : "";
    while (!value.empty() && g_ascii_isspace(value.back())) value.remove_suffix(1);
    const char* fix = "escapes are \\s \\n \\t \\r and \\\\ (write a backslash as \\\\)";
    std::string unescaped;
    for (std::size_t at = 0; at < value.size(); ++at) {
      if (value[at] != '\\') {
        unescaped += value[at];
        continue;
      }
      if (++at == value.size())
        fail(where(key), quoted(value) + " ends with a lone backslash", fix);
      static constexpr std::pair<char, char> kEscapes[] = {
          {'s', ' '}, {'n', '\n'}, {'t', '\t'}, {'r', '\r'}, {'\\', '\\'}};
      const auto escape = std::find_if(std::begin(kEscapes), std::end(kEscapes),
                                       [&](const auto& entry) { return entry.first == value[at]; });
      if (escape == std::end(kEscapes)) {
        // The backslash and the whole character after it.
        const auto length = std::min<std::size_t>(1 + g_utf8_skip[static_cast<guchar>(value[at])],
                                                  value.size() - at + 1);
        fail(where(key),
             quoted(value) + " holds the invalid escape " + quoted(value.substr(at - 1, length)),
             fix);
      }
      unescaped += escape->second;
    }
    return unescaped;
  }

  std::string non_empty(const std::string& key, const std::string& fix) const {
    std::string value = text(key);
    if (value.empty()) fail(where(key), "the value is empty", fix);
    return value;
  }

  gint64 duration(const std::string& key) const {
    const std::string value = text(key);
    const auto parsed = parse_duration(value);
    if (!parsed)
      fail(where(key), quoted(value) + " is not a duration" + comment_hint(value), kDurationFix);
    return *parsed;
  }

  GstClockTime non_negative_duration(const std::string& key) const {
    const gint64 value = duration(key);
    if (value < 0)
      fail(where(key), "a negative duration (" + text(key) + ")", "write 0 or more, e.g. 1s");
    return static_cast<GstClockTime>(value);
  }

  bool boolean(const std::string& key) const {
    const std::string value = text(key);
    if (value == "true" || value == "1") return true;
    if (value == "false" || value == "0") return false;
    fail(where(key), quoted(value) + " is not a boolean" + comment_hint(value),
         "write true or false");
  }

  // property.NAME=VALUE: NAME a GObject property name.
  std::pair<std::string, std::string> property(const std::string& key) const {
    const std::string name = key.substr(kPropertyPrefix.size());
    if (!g_param_spec_is_valid_name(name.c_str()))
      fail(where(key), quoted(name) + " is not a property name",
           "write property.NAME=VALUE, NAME a vmafexact property such as model, features or "
           "alert (letters, digits, - and _, starting with a letter)");
    return {name, text(key)};
  }

  static std::string comment_hint(const std::string& value) {
    return value.find('#') == std::string::npos
               ? ""
               : " (a # starts a comment only at the start of a line)";
  }

 private:
  GKeyFile* key_file_;
  const Layout& layout_;
  const std::string& file_;
  std::string group_;
};

std::vector<std::string> keys_of(GKeyFile* key_file, const std::string& group) {
  StrvPtr keys(g_key_file_get_keys(key_file, group.c_str(), nullptr, nullptr));
  std::vector<std::string> names;
  for (gchar** key = keys.get(); key && *key; ++key) names.emplace_back(*key);
  return names;
}

bool is_property_key(const std::string& key) { return key.starts_with(kPropertyPrefix); }

// The properties of one group in file order; two spellings of one property
// (foo-bar, foo_bar) are refused as a repeated key would be.
std::vector<std::pair<std::string, std::string>> read_properties(GKeyFile* key_file,
                                                                 const GroupReader& reader,
                                                                 const std::string& group) {
  std::vector<std::pair<std::string, std::string>> properties;
  std::map<std::string, std::string> keys_by_canonical;
  for (const std::string& key : keys_of(key_file, group)) {
    if (!is_property_key(key)) continue;
    auto property = reader.property(key);
    const auto [other, added] =
        keys_by_canonical.try_emplace(canonical_property(property.first), key);
    if (!added)
      fail(reader.where(key), "the same property as " + other->second + " (- and _ are alike)",
           "keep one of them");
    properties.push_back(std::move(property));
  }
  return properties;
}

void check_keys(GKeyFile* key_file, const GroupReader& reader, const std::string& group,
                std::initializer_list<std::string_view> known, const char* known_text) {
  for (const std::string& key : keys_of(key_file, group)) {
    if (is_property_key(key)) continue;
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail(reader.where(key), "unknown key",
           std::string("the keys of this group are ") + known_text + " (docs/live-monitoring.md)");
  }
}

void read_monitor(GKeyFile* key_file, const Layout& layout, const std::string& file,
                  MonitorConfig& config,
                  std::vector<std::pair<std::string, std::string>>& default_properties) {
  const std::string group = "monitor";
  const GroupReader reader(key_file, layout, file, group);
  check_keys(key_file, reader, group,
             {"listen", "jsonl", "restart-delay", "restart-delay-max", "stall-timeout"},
             kMonitorKeys);
  auto has = [&](const char* key) {
    return g_key_file_has_key(key_file, group.c_str(), key, nullptr);
  };
  if (has("listen")) {
    const std::string listen = reader.text("listen");
    std::string problem;
    if (!parse_listen_address(listen, problem))
      fail(reader.where("listen"), quoted(listen) + ": " + problem,
           "write HOST:PORT as --listen takes it");
    config.listen = listen;
  }
  if (has("jsonl"))
    config.jsonl = reader.non_empty("jsonl", "write a file name, or - for standard output");
  if (has("restart-delay")) {
    config.restart_delay = reader.non_negative_duration("restart-delay");
    if (config.restart_delay == 0)
      fail(reader.where("restart-delay"), "0 would restart a failing channel in a busy loop",
           "write a delay such as 1s or 250ms");
  }
  if (has("restart-delay-max"))
    config.restart_delay_max = reader.non_negative_duration("restart-delay-max");
  if (config.restart_delay > config.restart_delay_max) {
    const std::string key = has("restart-delay-max") ? "restart-delay-max" : "restart-delay";
    fail(reader.where(key),
         "restart-delay (" + std::to_string(config.restart_delay / GST_MSECOND) +
             " ms) is longer than restart-delay-max (" +
             std::to_string(config.restart_delay_max / GST_MSECOND) + " ms)",
         "make restart-delay-max at least restart-delay");
  }
  if (has("stall-timeout")) config.stall_timeout = reader.non_negative_duration("stall-timeout");
  default_properties = read_properties(key_file, reader, group);
}

// The channel's group, or nullopt when it is disabled (enabled=false).
std::optional<ChannelConfig> read_channel(
    GKeyFile* key_file, const Layout& layout, const std::string& file, const std::string& group,
    const std::vector<std::pair<std::string, std::string>>& default_properties) {
  const GroupReader reader(key_file, layout, file, group);
  ChannelConfig channel;
  channel.name = group.substr(kChannelPrefix.size());
  // The rule of --channel (options.h).
  if (!is_channel_name(channel.name))
    fail(reader.where_group(), "the channel name " + quoted(channel.name) + " is not valid",
         "write [channel NAME], NAME 1 to 64 letters, digits, _, . or - (it becomes the "
         "channel label)");
  check_keys(key_file, reader, group,
             {"ref", "dist", "pipeline", "ref-offset", "dist-offset", "scale-flags", "enabled"},
             kChannelKeys);
  auto has = [&](const char* key) {
    return g_key_file_has_key(key_file, group.c_str(), key, nullptr);
  };
  const bool enabled = !has("enabled") || reader.boolean("enabled");

  const std::string uri_fix = "write a URI (srt://..., udp://@..., file:///...) or a path";
  if (has("ref")) channel.ref = reader.non_empty("ref", uri_fix);
  if (has("dist")) channel.dist = reader.non_empty("dist", uri_fix);
  if (has("pipeline"))
    channel.pipeline =
        reader.non_empty("pipeline", "write a gst-launch-1.0 description with a vmafexact named v");
  const bool inputs = has("ref") || has("dist");
  if (inputs && has("pipeline"))
    fail(reader.where("pipeline"), "both ref/dist and pipeline",
         "give ref= and dist=, or pipeline= alone");
  if (!inputs && !has("pipeline"))
    fail(reader.where_group(), "neither ref/dist nor pipeline",
         "give ref=URI and dist=URI, or pipeline=DESCRIPTION");
  if (has("ref") != has("dist")) {
    const bool ref = has("ref");
    fail(reader.where(ref ? "ref" : "dist"), ref ? "ref without dist" : "dist without ref",
         ref ? "add dist=URI (the distorted input)" : "add ref=URI (the reference input)");
  }
  if (has("ref-offset")) channel.ref_offset = reader.duration("ref-offset");
  if (has("dist-offset")) channel.dist_offset = reader.duration("dist-offset");
  if (has("scale-flags")) {
    if (has("pipeline"))
      fail(reader.where("scale-flags"), "scale-flags is for ref/dist, not pipeline",
           "set the flags of the pipeline's vmafexactscale in its description, or drop "
           "scale-flags");
    channel.scale_flags = reader.non_empty("scale-flags", "write FFmpeg sws flags, e.g. bicubic");
  }

  auto own = read_properties(key_file, reader, group);
  std::set<std::string> own_names;
  for (const auto& property : own) own_names.insert(canonical_property(property.first));
  for (const auto& property : default_properties)
    if (!own_names.contains(canonical_property(property.first)))
      channel.properties.push_back(property);
  channel.properties.insert(channel.properties.end(), own.begin(), own.end());
  if (!enabled) return std::nullopt;
  return channel;
}

MonitorConfig parse_checked(std::string_view text, const std::string& file) {
  if (text.size() > kMaxConfigBytes)
    fail(Where{file}, "larger than " + std::to_string(kMaxConfigBytes / 1024) + " KiB",
         "check that --config names the station file (one is a few kilobytes)");
  if (text.starts_with("\xEF\xBB\xBF"))
    fail(Where{file, 1}, "starts with a byte order mark", "save the file as UTF-8 without a BOM");
  const gchar* invalid = nullptr;
  if (!g_utf8_validate_len(text.data(), text.size(), &invalid)) {
    const std::string_view before = text.substr(0, static_cast<std::size_t>(invalid - text.data()));
    const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    fail(Where{file, line}, *invalid == '\0' ? "contains a NUL byte" : "is not UTF-8 text",
         "save the file as UTF-8 text");
  }

  KeyFilePtr key_file(g_key_file_new());
  GError* raw_error = nullptr;
  if (!load_key_file(key_file.get(), text, &raw_error)) {
    const ErrorPtr error(raw_error);
    fail(Where{file, failing_line(text)}, shown(error ? error->message : "not a key file"),
         "each line is a [group], a KEY=VALUE or a # comment");
  }
  const Layout layout = scan_layout(text);

  // GKeyFile merged repeated groups: refuse them, as repeated keys.
  std::map<std::string, int> header_lines;
  for (const Layout::Header& header : layout.headers) {
    const auto [first, added] = header_lines.try_emplace(header.name, header.line);
    if (!added)
      fail(Where{file, header.line, header.name},
           "the group is repeated (first on line " + std::to_string(first->second) + ")",
           header.name.starts_with(kChannelPrefix) ? "give each channel its own name"
                                                   : "write [monitor] once");
  }
  if (!layout.repeated_keys.empty()) {
    const Layout::Repeat& repeat = layout.repeated_keys.front();
    fail(Where{file, repeat.line, repeat.group, repeat.key},
         "the key is repeated (first on line " + std::to_string(repeat.first_line) + ")",
         "keep one of them");
  }

  StrvPtr groups(g_key_file_get_groups(key_file.get(), nullptr));
  for (gchar** group = groups.get(); *group; ++group) {
    const std::string name = *group;
    if (name != "monitor" && !name.starts_with(kChannelPrefix))
      fail(Where{file, layout.header_line(name), name}, "unknown group",
           "the groups are [monitor] and [channel NAME], one for each channel");
  }

  MonitorConfig config;
  std::vector<std::pair<std::string, std::string>> default_properties;
  if (g_key_file_has_group(key_file.get(), "monitor"))
    read_monitor(key_file.get(), layout, file, config, default_properties);
  for (gchar** group = groups.get(); *group; ++group) {
    const std::string name = *group;
    if (!name.starts_with(kChannelPrefix)) continue;
    if (auto channel = read_channel(key_file.get(), layout, file, name, default_properties))
      config.channels.push_back(std::move(*channel));
  }
  if (config.channels.empty())
    fail(Where{file}, "no enabled channel",
         "add a [channel NAME] group with ref= and dist=, or pipeline= (or set enabled=true)");
  return config;
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

MonitorConfig parse_config(std::string_view text, const std::string& name_for_errors) {
  try {
    return parse_checked(text, name_for_errors);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::exception& error) {  // std::bad_alloc, ...: still a refused file
    throw ConfigError(name_for_errors + ": cannot be read (" + error.what() + "); check the file");
  }
}

MonitorConfig load_config(const std::string& path) {
  const std::string fix_path = "check the path given to --config";
  auto refuse_kind = [&](mode_t mode) {
    fail(Where{path}, std::string("is ") + file_kind(mode) + ", not a regular file",
         "give --config the station file itself");
  };
  // stat first: a FIFO or device is refused without opening it (opening a
  // FIFO for reading waits for a writer; a device may act on open).
  struct stat status {};
  if (stat(path.c_str(), &status) != 0)
    fail(Where{path}, std::string("cannot read it: ") + g_strerror(errno), fix_path);
  if (!S_ISREG(status.st_mode)) refuse_kind(status.st_mode);
  // O_NONBLOCK: should the path become a FIFO in between, open returns at once.
  const Descriptor file(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (file.get() < 0)
    fail(Where{path}, std::string("cannot open it: ") + g_strerror(errno), fix_path);
  if (fstat(file.get(), &status) != 0)
    fail(Where{path}, std::string("cannot read it: ") + g_strerror(errno), fix_path);
  if (!S_ISREG(status.st_mode)) refuse_kind(status.st_mode);
  // Said before reading it (the reading stops at the limit in any case).
  if (static_cast<std::size_t>(status.st_size) > kMaxConfigBytes)
    fail(Where{path},
         std::to_string(status.st_size) + " bytes, larger than " +
             std::to_string(kMaxConfigBytes / 1024) + " KiB",
         "check that --config names the station file (one is a few kilobytes)");

  // Read one byte past the limit, should the file have grown since fstat.
  std::string text(kMaxConfigBytes + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    const ssize_t got = read(file.get(), text.data() + size, text.size() - size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(Where{path}, std::string("cannot read it: ") + g_strerror(errno), fix_path);
    if (got == 0) break;
    size += static_cast<std::size_t>(got);
  }
  text.resize(size);
  return parse_config(text, path);
}

ConfigChanges diff_channels(const MonitorConfig& before, const MonitorConfig& after) {
  // By name, through maps: a reload of a large station stays O(n log n).
  auto by_name = [](const MonitorConfig& config) {
    std::map<std::string_view, const ChannelConfig*> channels;
    for (const ChannelConfig& channel : config.channels) channels.emplace(channel.name, &channel);
    return channels;
  };
  const auto old_channels = by_name(before), new_channels = by_name(after);
  ConfigChanges changes;
  for (const ChannelConfig& channel : before.channels)
    if (!new_channels.contains(channel.name)) changes.removed.push_back(channel.name);
  for (const ChannelConfig& channel : after.channels) {
    const auto old = old_channels.find(channel.name);
    if (old == old_channels.end())
      changes.added.push_back(channel.name);
    else if (!(*old->second == channel))
      changes.changed.push_back(channel.name);
  }
  return changes;
}

}  // namespace vmafexact::monitor_tool

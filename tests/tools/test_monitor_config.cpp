// vmafexact-monitor's station file (tools/monitor/config.h): what it reads,
// every rule it refuses a file by (each error naming the file, line, group and
// key), the defaults, the diff a SIGHUP reload acts on, and the example that
// ships (deploy/config/station.conf).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "../common/build_paths.h"
#include "config.h"

namespace {

using namespace vmafexact::monitor_tool;
using vmafexact::test::kSourceRoot;
using Properties = std::vector<std::pair<std::string, std::string>>;

constexpr const char* kOneChannel = "[channel a]\nref=r.mp4\ndist=d.mp4\n";

MonitorConfig parse(const std::string& text) { return parse_config(text, "station.conf"); }

// The message parse_config refuses `text` with ("" when it accepts it).
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

#define EXPECT_REFUSED(text, ...)                                \
  do {                                                           \
    const std::string message = error_of(text);                  \
    EXPECT_FALSE(message.empty()) << "accepted:\n" << (text);    \
    for (const char* part : {__VA_ARGS__})                       \
      EXPECT_NE(message.find(part), std::string::npos)           \
          << "'" << part << "' missing in: " << message;         \
    EXPECT_EQ(message.find('\n'), std::string::npos) << message; \
  } while (false)

// A temporary folder, removed with what it holds.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "monitor-config-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string load_error(const std::string& path) {
  try {
    load_config(path);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(MonitorConfig, ReadsEveryKey) {
  const MonitorConfig config = parse(
      "# a station\n"
      "[monitor]\n"
      "listen=0.0.0.0:9500\n"
      "jsonl=/var/log/station.jsonl\n"
      "restart-delay=250ms\n"
      "restart-delay-max=30s\n"
      "stall-timeout=0\n"
      "property.threads=2\n"
      "\n"
      "[channel news-hd]\n"
      "ref = srt://src:9000  \n"
      "dist=udp://@239.1.1.1:5000\n"
      "ref-offset=40ms\n"
      "dist-offset=-1.5s\n"
      "scale-flags=lanczos+accurate_rnd\n"
      "property.alert=vmaf<60:for=2s\n"
      "enabled=true\n"
      "[channel Sport_2.uhd]\n"
      "pipeline=videotestsrc ! v.ref_sink vmafexact name=v ! fakesink\n");
  EXPECT_EQ(config.listen, "0.0.0.0:9500");
  EXPECT_EQ(config.jsonl, "/var/log/station.jsonl");
  EXPECT_EQ(config.restart_delay, 250 * GST_MSECOND);
  EXPECT_EQ(config.restart_delay_max, 30 * GST_SECOND);
  EXPECT_EQ(config.stall_timeout, 0u);
  ASSERT_EQ(config.channels.size(), 2u);
  const ChannelConfig& news = config.channels[0];
  EXPECT_EQ(news.name, "news-hd");
  EXPECT_EQ(news.ref, "srt://src:9000");  // spaces around the value dropped
  EXPECT_EQ(news.dist, "udp://@239.1.1.1:5000");
  EXPECT_EQ(news.pipeline, "");
  EXPECT_EQ(news.ref_offset, 40 * GST_MSECOND);
  EXPECT_EQ(news.dist_offset, -1500 * static_cast<gint64>(GST_MSECOND));
  EXPECT_EQ(news.scale_flags, "lanczos+accurate_rnd");
  EXPECT_EQ(news.properties, (Properties{{"threads", "2"}, {"alert", "vmaf<60:for=2s"}}));
  const ChannelConfig& sport = config.channels[1];
  EXPECT_EQ(sport.name, "Sport_2.uhd");
  EXPECT_EQ(sport.pipeline, "videotestsrc ! v.ref_sink vmafexact name=v ! fakesink");
  EXPECT_EQ(sport.scale_flags, "bicubic");
  EXPECT_EQ(sport.properties, (Properties{{"threads", "2"}}));
}

TEST(MonitorConfig, DefaultsWithoutMonitorGroup) {
  const MonitorConfig config = parse(kOneChannel);
  EXPECT_FALSE(config.listen);
  EXPECT_FALSE(config.jsonl);
  EXPECT_EQ(config.restart_delay, 1 * GST_SECOND);
  EXPECT_EQ(config.restart_delay_max, 60 * GST_SECOND);
  EXPECT_EQ(config.stall_timeout, 10 * GST_SECOND);
  ASSERT_EQ(config.channels.size(), 1u);
  EXPECT_EQ(config.channels[0].ref_offset, 0);
  EXPECT_TRUE(config.channels[0].properties.empty());
}

TEST(MonitorConfig, ChannelPropertiesReplaceDefaultsOfTheSameName) {
  const MonitorConfig config = parse(
      "[monitor]\nproperty.model=m1\nproperty.threads=1\nproperty.features=psnr\n"
      "[channel a]\nref=r\ndist=d\nproperty.alert=vmaf<60\nproperty.model=m2\n"
      "[channel b]\nref=r\ndist=d\nproperty.window_size=2s\n"
      // - and _ name the same property: the channel's replaces the default.
      "[channel c]\nref=r\ndist=d\nproperty.features=\n");
  ASSERT_EQ(config.channels.size(), 3u);
  EXPECT_EQ(
      config.channels[0].properties,
      (Properties{{"threads", "1"}, {"features", "psnr"}, {"alert", "vmaf<60"}, {"model", "m2"}}));
  EXPECT_EQ(
      config.channels[1].properties,
      (Properties{{"model", "m1"}, {"threads", "1"}, {"features", "psnr"}, {"window_size", "2s"}}));
  EXPECT_EQ(config.channels[2].properties,
            (Properties{{"model", "m1"}, {"threads", "1"}, {"features", ""}}));
  const MonitorConfig spelled = parse(
      "[monitor]\nproperty.window-size=1s\n[channel a]\nref=r\ndist=d\nproperty.window_size=2s\n");
  EXPECT_EQ(spelled.channels[0].properties, (Properties{{"window_size", "2s"}}));
}

TEST(MonitorConfig, DisabledChannelsAreCheckedButNotRun) {
  const MonitorConfig config = parse(
      "[channel a]\nref=r\ndist=d\nenabled=false\n[channel b]\nref=r\ndist=d\nenabled=1\n"
      "[channel c]\nref=r\ndist=d\nenabled=0\n[channel d]\nref=r\ndist=d\nenabled=true\n");
  ASSERT_EQ(config.channels.size(), 2u);
  EXPECT_EQ(config.channels[0].name, "b");
  EXPECT_EQ(config.channels[1].name, "d");
  EXPECT_REFUSED("[channel a]\nref=r\nenabled=false\n[channel b]\nref=r\ndist=d\n",
                 "station.conf:2: [channel a] ref: ref without dist");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nenabled=yes\n",
                 "station.conf:4: [channel a] enabled:", "'yes' is not a boolean",
                 "write true or false");
}

TEST(MonitorConfig, EscapesAreUnescaped) {
  const MonitorConfig config = parse("[channel a]\nref=\\sr\\\\x\\t\\n\\r\\s \t\ndist=d\\\\\n");
  EXPECT_EQ(config.channels[0].ref, " r\\x\t\n\r ");  // spaces after the value dropped, not \s
  EXPECT_EQ(config.channels[0].dist, "d\\");
  EXPECT_REFUSED("[channel a]\nref=a\\qb\ndist=d\n",
                 "station.conf:2: [channel a] ref: 'a\\qb' holds the invalid escape '\\q'",
                 "write a backslash as \\\\");
  EXPECT_REFUSED(
      "[channel a]\nref=r\ndist=a\\\xc3\xa9"
      "b\n",
      "the invalid escape '\\\xc3\xa9'");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\\ \n",
                 "station.conf:3: [channel a] dist: 'd\\' ends with a lone backslash");
}

// GLib 2.74's g_key_file_get_string sets its GError twice for this value (a
// warning on standard error, an abort under G_DEBUG=fatal-warnings).
TEST(MonitorConfig, EscapesWarnNothing) {
  static int warnings = 0;
  const guint handler = g_log_set_handler(
      "GLib", static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL),
      [](const gchar*, GLogLevelFlags, const gchar*, gpointer) { ++warnings; }, nullptr);
  EXPECT_REFUSED("[channel a]\nref=a\\qb\\\ndist=d\n", "the invalid escape '\\q'");
  g_log_remove_handler("GLib", handler);
  EXPECT_EQ(warnings, 0);
}

TEST(MonitorConfig, SyntaxErrorsKeepTheirLine) {
  EXPECT_REFUSED("[channel a]\nref=r\n\nnot a key\ndist=d\n",
                 "station.conf:4: ", "not a key-value pair",
                 "each line is a [group], a KEY=VALUE or a # comment");
  EXPECT_REFUSED("# comment\nref=r\n[channel a]\n",
                 "station.conf:2: ", "does not start with a group");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\n[channel b\n", "station.conf:4: ");
  EXPECT_REFUSED("\xEF\xBB\xBF[channel a]\nref=r\ndist=d\n", "station.conf:1: ", "byte order mark");
}

TEST(MonitorConfig, UnknownGroupsAndKeysAreRefused) {
  EXPECT_REFUSED(std::string(kOneChannel) + "[channels b]\nref=r\n",
                 "station.conf:4: [channels b]: unknown group", "[monitor] and [channel NAME]");
  EXPECT_REFUSED(std::string("[monitor]\nlisen=1\n") + kOneChannel,
                 "station.conf:2: [monitor] lisen: unknown key",
                 "listen, jsonl, restart-delay, restart-delay-max, stall-timeout, property.NAME");
  EXPECT_REFUSED(
      "[channel a]\nref=r\ndist=d\nstall-timeout=1s\n",
      "station.conf:4: [channel a] stall-timeout: unknown key",
      "ref, dist, pipeline, ref-offset, dist-offset, scale-flags, property.NAME, enabled");
  // GKeyFile would drop a translation silently.
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nref[fr]=x\n",
                 "station.conf:4: [channel a] ref[fr]: unknown key");
}

TEST(MonitorConfig, ChannelNamesAreChecked) {
  EXPECT_NO_THROW(parse("[channel " + std::string(64, 'x') + "]\nref=r\ndist=d\n"));
  EXPECT_REFUSED("[channel " + std::string(65, 'x') + "]\nref=r\ndist=d\n",
                 "station.conf:1: ", "is not valid", "1 to 64 letters, digits, _, . or -");
  EXPECT_REFUSED("[channel news hd]\nref=r\ndist=d\n",
                 "station.conf:1: [channel news hd]: ", "'news hd' is not valid");
  EXPECT_REFUSED("[channel ]\nref=r\ndist=d\n", "'' is not valid");
  EXPECT_REFUSED("[channel caf\xc3\xa9]\nref=r\ndist=d\n", "is not valid");
  EXPECT_REFUSED("[channel a\"b]\nref=r\ndist=d\n", "is not valid");
}

TEST(MonitorConfig, RepeatedGroupsAndKeysAreRefused) {
  // GKeyFile merges the two groups into one channel: refused, naming both lines.
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\n\n[channel a]\nenabled=false\n",
                 "station.conf:5: [channel a]: the group is repeated (first on line 1)",
                 "give each channel its own name");
  EXPECT_REFUSED(std::string("[monitor]\n[monitor]\n") + kOneChannel, "station.conf:2: [monitor]",
                 "write [monitor] once");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nref=s\n",
                 "station.conf:4: [channel a] ref: the key is repeated (first on line 2)");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nproperty.window-size=1\nproperty.window_size=2\n",
                 "station.conf:5: [channel a] property.window_size: the same property as "
                 "property.window-size");
}

TEST(MonitorConfig, InputsAreRefOrDistOrPipeline) {
  EXPECT_REFUSED("[channel a]\nref=r\n", "station.conf:2: [channel a] ref: ref without dist",
                 "add dist=URI");
  EXPECT_REFUSED("[channel a]\ndist=d\n", "station.conf:2: [channel a] dist: dist without ref");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\npipeline=p\n",
                 "station.conf:4: [channel a] pipeline: both ref/dist and pipeline");
  EXPECT_REFUSED("[channel a]\nref=r\npipeline=p\n", "both ref/dist and pipeline");
  EXPECT_REFUSED("[channel a]\nenabled=true\n",
                 "station.conf:1: [channel a]: neither ref/dist nor pipeline");
  EXPECT_REFUSED("[channel a]\nref=\ndist=d\n",
                 "station.conf:2: [channel a] ref: the value is empty");
  EXPECT_REFUSED("[channel a]\npipeline=p\nscale-flags=bilinear\n",
                 "station.conf:3: [channel a] scale-flags: scale-flags is for ref/dist");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nscale-flags=\n",
                 "[channel a] scale-flags: the value is empty");
}

TEST(MonitorConfig, DurationsAreChecked) {
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nref-offset=40 ms\n",
                 "station.conf:4: [channel a] ref-offset: '40 ms' is not a duration", "250ms");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\ndist-offset=40ms # late\n",
                 "'40ms # late' is not a duration", "a # starts a comment only at the start");
  EXPECT_REFUSED(std::string("[monitor]\nstall-timeout=ten\n") + kOneChannel,
                 "station.conf:2: [monitor] stall-timeout: 'ten' is not a duration");
  EXPECT_REFUSED(std::string("[monitor]\nstall-timeout=-1s\n") + kOneChannel,
                 "[monitor] stall-timeout: a negative duration");
  EXPECT_EQ(parse("[channel a]\nref=r\ndist=d\nref-offset=-40ms\n").channels[0].ref_offset,
            -40 * static_cast<gint64>(GST_MSECOND));
}

TEST(MonitorConfig, RestartDelaysAreChecked) {
  EXPECT_REFUSED(std::string("[monitor]\nrestart-delay=-1s\n") + kOneChannel,
                 "station.conf:2: [monitor] restart-delay: a negative duration");
  EXPECT_REFUSED(std::string("[monitor]\nrestart-delay-max=-1s\n") + kOneChannel,
                 "station.conf:2: [monitor] restart-delay-max: a negative duration");
  EXPECT_REFUSED(std::string("[monitor]\nrestart-delay=0\n") + kOneChannel,
                 "[monitor] restart-delay: 0 would restart a failing channel in a busy loop");
  EXPECT_REFUSED(std::string("[monitor]\nrestart-delay=5s\nrestart-delay-max=2s\n") + kOneChannel,
                 "station.conf:3: [monitor] restart-delay-max: restart-delay (5000 ms) is longer "
                 "than restart-delay-max (2000 ms)");
  // The default cap (60 s) holds too.
  EXPECT_REFUSED(std::string("[monitor]\nrestart-delay=61s\n") + kOneChannel,
                 "station.conf:2: [monitor] restart-delay: restart-delay (61000 ms) is longer");
  EXPECT_EQ(parse(std::string("[monitor]\nrestart-delay=5s\nrestart-delay-max=5s\n") + kOneChannel)
                .restart_delay_max,
            5 * GST_SECOND);
}

TEST(MonitorConfig, MonitorValuesAreChecked) {
  EXPECT_REFUSED(std::string("[monitor]\nlisten=9464\n") + kOneChannel,
                 "station.conf:2: [monitor] listen: '9464': expected HOST:PORT");
  EXPECT_REFUSED(std::string("[monitor]\nlisten=example.org:80\n") + kOneChannel,
                 "is not an IP address");
  // The key file turns \n into a newline; the message shows it escaped, on one
  // line (found by fuzz-monitor_config).
  EXPECT_REFUSED(std::string("[monitor]\nlisten=127.0.0[a\\nb.1:9464\n") + kOneChannel,
                 "'127.0.0[a\\x0ab.1' is not an IP address");
  EXPECT_REFUSED(std::string("[monitor]\nlisten=127.0.0.1:94\\n64\n") + kOneChannel,
                 "the port '94\\x0a64' is not a number");
  EXPECT_REFUSED(std::string("[monitor]\njsonl=\n") + kOneChannel,
                 "station.conf:2: [monitor] jsonl: the value is empty");
}

TEST(MonitorConfig, PropertyNamesAreChecked) {
  EXPECT_NO_THROW(parse("[channel a]\nref=r\ndist=d\nproperty.window-size=1s\nproperty.a_b9=1\n"));
  for (const std::string name : {"", "9lives", "has space", "dot.ted", "caf\xc3\xa9", "a=b"}) {
    SCOPED_TRACE(name);
    // A '=' ends the key: "property.a=b=1" is property.a with "b=1".
    if (name == "a=b") {
      EXPECT_EQ(parse("[channel a]\nref=r\ndist=d\nproperty.a=b=1\n").channels[0].properties,
                (Properties{{"a", "b=1"}}));
      continue;
    }
    const std::string where = "station.conf:4: [channel a] property." + name + ": ";
    EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nproperty." + name + "=1\n", where.c_str(),
                   "is not a property name");
  }
  EXPECT_REFUSED(std::string("[monitor]\nproperty.-x=1\n") + kOneChannel,
                 "station.conf:2: [monitor] property.-x: '-x' is not a property name");
}

TEST(MonitorConfig, SomeChannelMustBeEnabled) {
  EXPECT_REFUSED("", "station.conf: no enabled channel", "add a [channel NAME] group");
  EXPECT_REFUSED("[monitor]\nlisten=127.0.0.1:1\n", "no enabled channel");
  EXPECT_REFUSED("[channel a]\nref=r\ndist=d\nenabled=false\n", "no enabled channel");
}

TEST(MonitorConfig, BytesThatAreNotUtf8TextAreRefused) {
  EXPECT_REFUSED("[channel a]\nref=r\xff\ndist=d\n", "station.conf:2: is not UTF-8 text");
  EXPECT_REFUSED(std::string("[channel a]\nref=r\ndist=d\0\n", 26),
                 "station.conf:3: contains a NUL byte");
}

TEST(MonitorConfig, OversizedTextIsRefused) {
  std::string text = kOneChannel;
  text += "# " + std::string(kMaxConfigBytes - text.size() - 3, 'x') + "\n";
  ASSERT_EQ(text.size(), kMaxConfigBytes);
  EXPECT_NO_THROW(parse(text));
  text += "\n";
  EXPECT_REFUSED(text, "station.conf: larger than 1024 KiB");
}

TEST(MonitorConfig, LoadsAFile) {
  TempDir dir;
  write_file(dir / "station.conf", kOneChannel);
  EXPECT_EQ(load_config((dir / "station.conf").string()).channels.at(0).name, "a");
  write_file(dir / "bad.conf", "[channel a]\nref=r\n");
  EXPECT_EQ(load_error((dir / "bad.conf").string()),
            (dir / "bad.conf").string() +
                ":2: [channel a] ref: ref without dist; add dist=URI (the "
                "distorted input)");
  EXPECT_NE(load_error((dir / "missing.conf").string()).find("cannot read it: No such file"),
            std::string::npos);
}

TEST(MonitorConfig, RefusesWhatIsNotARegularFile) {
  TempDir dir;
  EXPECT_NE(load_error((dir / "").string()).find("is a directory, not a regular file"),
            std::string::npos);
  EXPECT_NE(load_error("/dev/null").find("is a character device, not a regular file"),
            std::string::npos);
  // A FIFO without a writer: refused at once, where reading it would wait for ever.
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto refused = std::async(std::launch::async, [&] { return load_error(fifo); });
  if (refused.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "load_config waits on a FIFO";
    // A writer that opens and closes ends the wait, so that the test ends.
    const int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (writer >= 0) close(writer);
  }
  EXPECT_NE(refused.get().find("is a FIFO, not a regular file"), std::string::npos);
  // A Unix socket.
  const std::string socket_path = (dir / "socket").string();
  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  socket_path.copy(address.sun_path, socket_path.size());
  ASSERT_EQ(bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_NE(load_error(socket_path).find("is a socket, not a regular file"), std::string::npos);
  close(listener);
  // A link to a regular file is read.
  write_file(dir / "station.conf", kOneChannel);
  std::filesystem::create_symlink(dir / "station.conf", dir / "link.conf");
  EXPECT_NO_THROW(load_config((dir / "link.conf").string()));
}

TEST(MonitorConfig, RefusesAnOversizedFile) {
  TempDir dir;
  const std::string text = kOneChannel + std::string(kMaxConfigBytes, '#');
  write_file(dir / "big.conf", text);
  EXPECT_NE(load_error((dir / "big.conf").string())
                .find(std::to_string(text.size()) + " bytes, larger than 1024 KiB"),
            std::string::npos);
  // A sparse file of 1 GiB: refused by its size, never read.
  { std::ofstream(dir / "sparse.conf") << ""; }
  std::filesystem::resize_file(dir / "sparse.conf", std::uintmax_t{1} << 30);
  EXPECT_NE(load_error((dir / "sparse.conf").string()).find("1073741824 bytes, larger than"),
            std::string::npos);
}

// The example shipped for operators parses, with every key it documents.
TEST(MonitorConfig, ShippedExampleParses) {
  const std::string path = std::string(kSourceRoot) + "/deploy/config/station.conf";
  const MonitorConfig config = load_config(path);
  EXPECT_TRUE(config.listen);
  EXPECT_TRUE(config.jsonl);
  EXPECT_GE(config.channels.size(), 2u);
  bool inputs = false, pipeline = false;
  for (const ChannelConfig& channel : config.channels) {
    inputs |= !channel.ref.empty();
    pipeline |= !channel.pipeline.empty();
  }
  EXPECT_TRUE(inputs);
  EXPECT_TRUE(pipeline);
}

// And so does the example in the documentation of the format.
TEST(MonitorConfig, DocumentedExampleParses) {
  std::ifstream in(std::string(kSourceRoot) + "/docs/live-monitoring.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto section = doc.find("## A station: several channels");
  ASSERT_NE(section, std::string::npos);
  const auto start = doc.find("```ini\n", section);
  ASSERT_NE(start, std::string::npos);
  const auto end = doc.find("```", start + 7);
  ASSERT_NE(end, std::string::npos);
  const MonitorConfig config = parse(doc.substr(start + 7, end - start - 7));
  ASSERT_EQ(config.channels.size(), 2u);
  EXPECT_EQ(config.channels[0].properties, (Properties{{"window", "10s"},
                                                       {"alert", "vmaf<60:for=2s:clear=65"},
                                                       {"model", "vmaf_v1.0.16_3d0h"}}));
}

MonitorConfig station(const std::string& channels) { return parse(channels); }

TEST(MonitorConfigDiff, NamesRemovedAddedAndChangedChannels) {
  const MonitorConfig before = station(
      "[channel keep]\nref=r\ndist=d\n[channel gone]\nref=r\ndist=d\n"
      "[channel offset]\nref=r\ndist=d\n[channel prop]\nref=r\ndist=d\nproperty.model=a\n");
  const MonitorConfig after = station(
      "[channel new]\nref=r\ndist=d\n[channel prop]\nref=r\ndist=d\nproperty.model=b\n"
      "[channel keep]\nref=r\ndist=d\n[channel offset]\nref=r\ndist=d\nref-offset=1ms\n");
  const ConfigChanges changes = diff_channels(before, after);
  EXPECT_EQ(changes.removed, std::vector<std::string>{"gone"});
  EXPECT_EQ(changes.added, std::vector<std::string>{"new"});
  EXPECT_EQ(changes.changed, (std::vector<std::string>{"prop", "offset"}));
  EXPECT_EQ(diff_channels(before, before), ConfigChanges{});
}

// As many channels as a 1 MiB file can hold: the diff is not quadratic
// (searching by name channel by channel took seconds of CPU here).
TEST(MonitorConfigDiff, LargeStationsDiffQuickly) {
  MonitorConfig before, after;
  constexpr int kChannels = 40000;
  for (int i = 0; i < kChannels; ++i) {
    ChannelConfig channel;
    channel.pipeline = "p";
    channel.name = std::to_string(i);
    before.channels.push_back(channel);
    channel.name = std::to_string(kChannels - 1 - i + kChannels / 2);  // half of them new
    after.channels.push_back(channel);
  }
  const std::clock_t start = std::clock();
  const ConfigChanges changes = diff_channels(before, after);
  const double cpu_seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  EXPECT_EQ(changes.removed.size(), std::size_t{kChannels / 2});
  EXPECT_EQ(changes.added.size(), std::size_t{kChannels / 2});
  EXPECT_TRUE(changes.changed.empty());
  EXPECT_LT(cpu_seconds, 1.0);
  RecordProperty("cpu_seconds", std::to_string(cpu_seconds));
}

TEST(MonitorConfigDiff, EveryFieldCounts) {
  const std::string base = "[channel a]\nref=r\ndist=d\n";
  const MonitorConfig before = station(base);
  for (const char* edit :
       {"[channel a]\nref=r2\ndist=d\n", "[channel a]\nref=r\ndist=d2\n",
        "[channel a]\npipeline=p\n", "[channel a]\nref=r\ndist=d\ndist-offset=1\n",
        "[channel a]\nref=r\ndist=d\nscale-flags=lanczos\n",
        "[channel a]\nref=r\ndist=d\nproperty.model=x\n",
        "[monitor]\nproperty.model=x\n[channel a]\nref=r\ndist=d\n"}) {
    SCOPED_TRACE(edit);
    EXPECT_EQ(diff_channels(before, station(edit)).changed, std::vector<std::string>{"a"});
  }
  // Disabling a channel removes it; enabling it adds it.
  const MonitorConfig disabled = station(base + "enabled=false\n[channel b]\nref=r\ndist=d\n");
  EXPECT_EQ(diff_channels(before, disabled).removed, std::vector<std::string>{"a"});
  EXPECT_EQ(diff_channels(disabled, before).added, std::vector<std::string>{"a"});
  // [monitor]'s own settings are not the channels'.
  EXPECT_EQ(diff_channels(before, station("[monitor]\nstall-timeout=1s\n" + base)),
            ConfigChanges{});
  // Property order counts: it is the order they are set in.
  EXPECT_EQ(diff_channels(station(base + "property.a=1\nproperty.b=2\n"),
                          station(base + "property.b=2\nproperty.a=1\n"))
                .changed,
            std::vector<std::string>{"a"});
}

}  // namespace

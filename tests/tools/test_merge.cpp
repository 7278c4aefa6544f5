// `vmafexact merge DIR` (tools/vmafexact/merge.cpp) as a program, on folders
// laid out as `vmafexact batch` leaves them: records DIR/rows/ID.json and logs
// DIR/ID.json written by the real tool. The summary's figures read back equal
// the logs' doubles; failed, missing and corrupt rows are listed with their
// reason; the manifest's order; the x- columns; outputs replaced whole; the
// page well-formed and holding every row.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "../common/build_paths.h"
#include "child_process.h"
#include "strict_xml.h"

using vmafexact::test::kCliPath;

namespace fs = std::filesystem;
// Keys kept in order (a record's x- columns are in the manifest's order).
using json = nlohmann::ordered_json;
using vmafexact::test::ChildProcess;
using vmafexact::test::read_text;

namespace {

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// RFC 4180: quoted cells with doubled quotes, commas and line breaks; CRLF.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false, any = false;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (quoted) {
      if (c == '"' && at + 1 < text.size() && text[at + 1] == '"') {
        cell.push_back('"');
        ++at;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
      any = true;
    } else if (c == '\r' && at + 1 < text.size() && text[at + 1] == '\n') {
    } else if (c == '\n') {
      row.push_back(cell);
      rows.push_back(row);
      row.clear();
      cell.clear();
      any = false;
    } else {
      cell.push_back(c);
      any = true;
    }
  }
  if (any) {
    row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

// The CSV as one map per row, column name -> cell.
std::vector<std::map<std::string, std::string>> csv_records(const fs::path& path) {
  const auto table = parse_csv(read_text(path));
  std::vector<std::map<std::string, std::string>> records;
  if (table.empty()) return records;
  for (std::size_t r = 1; r < table.size(); ++r) {
    std::map<std::string, std::string> record;
    EXPECT_EQ(table[r].size(), table[0].size()) << "row " << r;
    for (std::size_t c = 0; c < table[0].size() && c < table[r].size(); ++c)
      record[table[0][c]] = table[r][c];
    records.push_back(record);
  }
  return records;
}

std::string exact(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

struct Result {
  int code = -1;
  std::string error_output;
};

class Merge : public ::testing::Test {
 protected:
  // Two logs written by the tool at --precision max (as batch runs each row).
  static void SetUpTestSuite() {
    folder_ = fs::temp_directory_path() / ("vmafexact-merge-test-" + std::to_string(getpid()));
    fs::create_directories(folder_);
    const std::string ff = "ffmpeg -nostdin -loglevel error -y ";
    const std::string f = folder_.string() + "/";
    for (const std::string& command :
         {ff + "-f lavfi -i testsrc2=size=160x90:rate=24 -frames:v 5 -pix_fmt yuv420p " + f +
              "ref.y4m",
          ff + "-i " + f + "ref.y4m -vf noise=alls=12 " + f + "dist_a.y4m",
          ff + "-i " + f + "ref.y4m -vf noise=alls=40 " + f + "dist_b.y4m"}) {
      if (std::system(command.c_str()) != 0) {
        setup_error_ = "ffmpeg failed: " + command;
        return;
      }
    }
    for (const char* name : {"a", "b"}) {
      ChildProcess tool({kCliPath, f + "ref.y4m", f + "dist_" + name + ".y4m", "--json",
                         f + "log_" + name + ".json", "--precision", "max", "--quiet"},
                        folder_ / "tool.err");
      if (tool.wait_exit(std::chrono::seconds(120)) != 0) {
        setup_error_ = "vmafexact failed: " + tool.error_output();
        return;
      }
    }
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }

  void SetUp() override {
    if (!setup_error_.empty()) GTEST_FAIL() << setup_error_;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = folder_ / info->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "rows");
  }

  static json log_of(const std::string& which) {
    return json::parse(read_text(folder_ / ("log_" + which + ".json")));
  }

  // A record as `vmafexact batch` writes it (common.md), and for an ok row its log.
  void add_row(const std::string& id, const std::string& status, const std::string& log = "a",
               const json& extra = json::object(), const std::string& error = "") {
    const json record = {{"id", id},
                         {"line", 2},
                         {"ref", (folder_ / "ref.y4m").string()},
                         {"dist", (folder_ / ("dist_" + log + ".y4m")).string()},
                         {"options", json::object()},
                         {"extra", extra},
                         {"status", status},
                         {"exit_code", status == "ok" ? 0 : 2},
                         {"error", error},
                         {"log", id + ".json"},
                         {"started", "2026-12-06T17:00:00Z"},
                         {"finished", "2026-12-06T17:00:01Z"},
                         {"seconds", 1.25},
                         {"host", "node1"},
                         {"shard", "0/1"},
                         {"attempt", 1},
                         {"fingerprint", std::string(64, '0')}};
    write_file(dir_ / "rows" / (id + ".json"), record.dump(2));
    if (status == "ok")
      fs::copy_file(folder_ / ("log_" + log + ".json"), dir_ / (id + ".json"),
                    fs::copy_options::overwrite_existing);
  }

  static Result merge(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {kCliPath, "merge"});
    ChildProcess tool(arguments, folder_ / "merge.err");
    const auto code = tool.wait_exit(std::chrono::seconds(60));
    return {code.value_or(-1), tool.error_output()};
  }

  static std::vector<std::string> hidden_files(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.path().filename().string().starts_with('.'))
        names.push_back(entry.path().filename().string());
    return names;
  }

  static inline fs::path folder_;
  static inline std::string setup_error_;
  fs::path dir_;
};

// Every pooled figure of every log, read back from the CSV (strtod) and the
// JSON, is the very double of the log; the models' scores lead the columns.
TEST_F(Merge, FiguresEqualTheLogsDoubles) {
  add_row("clip_a", "ok", "a");
  add_row("clip_b", "ok", "b");
  const Result result = merge({dir_.string()});
  ASSERT_EQ(result.code, 0) << result.error_output;

  const auto header = parse_csv(read_text(dir_ / "summary.csv")).at(0);
  const std::vector<std::string> leading = {"id",     "status", "ref",     "dist",
                                            "frames", "error",  "vmaf_min"};
  ASSERT_GE(header.size(), leading.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 7), leading);

  const auto rows = csv_records(dir_ / "summary.csv");
  const json summary = json::parse(read_text(dir_ / "summary.json"));
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(summary["rows"].size(), 2u);
  EXPECT_EQ(summary["counts"], json({{"ok", 2}, {"failed", 0}, {"missing", 0}}));
  std::size_t compared = 0;
  for (std::size_t r = 0; r < 2; ++r) {
    const json log = log_of(r == 0 ? "a" : "b");
    const json& entry = summary["rows"][r];
    EXPECT_EQ(rows[r].at("id"), r == 0 ? "clip_a" : "clip_b");
    EXPECT_EQ(rows[r].at("status"), "ok");
    EXPECT_EQ(rows[r].at("frames"), std::to_string(log["frames"].size()));
    EXPECT_EQ(entry["frames"], log["frames"].size());
    ASSERT_FALSE(log["pooled_metrics"].empty());
    for (const auto& [name, figures] : log["pooled_metrics"].items()) {
      for (const char* figure : {"min", "max", "mean", "harmonic_mean"}) {
        const std::string column = name + "_" + figure;
        const double expected = figures.at(figure).get<double>();
        const std::string& cell = rows[r].at(column);
        EXPECT_EQ(std::strtod(cell.c_str(), nullptr), expected) << column << " = " << cell;
        EXPECT_EQ(cell, exact(expected)) << column;
        EXPECT_EQ(entry.at(column).get<double>(), expected) << column;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 8u);
  EXPECT_EQ(hidden_files(dir_), std::vector<std::string>());
}

// What `vmafexact batch` leaves, one shard of it: its ok row's figures are its
// log's, its failed row has the tool's error, the other shard's row is missing.
TEST_F(Merge, MergesWhatBatchWrote) {
  const fs::path manifest = dir_ / "catalogue.csv";
  const std::string f = folder_.string() + "/";
  write_file(manifest,
             "id,ref,dist,x-crf\n"
             "alpha," +
                 f + "ref.y4m," + f +
                 "dist_a.y4m,23\n"
                 "beta," +
                 f + "ref.y4m," + f +
                 "dist_b.y4m,30\n"
                 "gamma," +
                 f + "ref.y4m," + f + "nosuch.mp4,40\n");
  const fs::path out = dir_ / "out";
  ChildProcess batch({kCliPath, "batch", manifest.string(), "--output-dir", out.string(), "--shard",
                      "0/2", "--quiet"},
                     folder_ / "batch.err");
  ASSERT_EQ(batch.wait_exit(std::chrono::seconds(120)), 6) << batch.error_output();
  const Result result = merge({out.string(), "--manifest", manifest.string()});
  EXPECT_EQ(result.code, 6) << result.error_output;
  const auto rows = csv_records(out / "summary.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("id"), "alpha");
  EXPECT_EQ(rows[0].at("status"), "ok");
  EXPECT_EQ(rows[0].at("x-crf"), "23");
  const json log = json::parse(read_text(out / "alpha.json"));
  for (const auto& [name, figures] : log["pooled_metrics"].items())
    for (const char* figure : {"min", "max", "mean", "harmonic_mean"})
      EXPECT_EQ(std::strtod(rows[0].at(name + "_" + figure).c_str(), nullptr),
                figures.at(figure).get<double>())
          << name << "_" << figure;
  EXPECT_EQ(rows[1].at("id"), "beta");
  EXPECT_EQ(rows[1].at("status"), "missing");
  EXPECT_EQ(rows[1].at("x-crf"), "30");
  EXPECT_EQ(rows[2].at("id"), "gamma");
  EXPECT_EQ(rows[2].at("status"), "failed");
  EXPECT_NE(rows[2].at("error").find("nosuch.mp4"), std::string::npos) << rows[2].at("error");
  EXPECT_EQ(rows[2].at("x-crf"), "40");
}

// Without a manifest, rows in the ids' byte order.
TEST_F(Merge, RowsSortedByIdWithoutManifest) {
  for (const char* id : {"c2", "b", "c10", "a"}) add_row(id, "ok");
  // The batch's temporary files are not records.
  write_file(dir_ / "rows" / ".z.json.vmafexact.host.1.abcdef", "{");
  ASSERT_EQ(merge({dir_.string()}).code, 0);
  std::vector<std::string> ids;
  for (const auto& row : csv_records(dir_ / "summary.csv")) ids.push_back(row.at("id"));
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "c10", "c2"}));
}

// A failed row keeps its error (commas, quotes, lines: quoted as RFC 4180 says)
// and empty figures; the summary is written and the exit status is 6.
TEST_F(Merge, FailedRowListedWithItsError) {
  add_row("good", "ok");
  const std::string error = "vmafexact: cannot read \"x.mp4\", it is cut off\n  Check the file.";
  add_row("bad", "failed", "a", json::object(), error);
  const Result result = merge({dir_.string()});
  EXPECT_EQ(result.code, 6) << result.error_output;
  EXPECT_NE(result.error_output.find("bad: failed"), std::string::npos) << result.error_output;
  const auto rows = csv_records(dir_ / "summary.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("id"), "bad");
  EXPECT_EQ(rows[0].at("status"), "failed");
  EXPECT_EQ(rows[0].at("error"), error);
  EXPECT_EQ(rows[0].at("vmaf_mean"), "");
  EXPECT_EQ(rows[0].at("frames"), "");
  EXPECT_EQ(rows[1].at("status"), "ok");
  EXPECT_NE(rows[1].at("vmaf_mean"), "");
  const json summary = json::parse(read_text(dir_ / "summary.json"));
  EXPECT_EQ(summary["counts"], json({{"ok", 1}, {"failed", 1}, {"missing", 0}}));
  EXPECT_TRUE(summary["rows"][0]["vmaf_mean"].is_null());
  EXPECT_EQ(summary["rows"][0]["error"], error);
  EXPECT_TRUE(fs::exists(dir_ / "report.html"));
}

// With --manifest: its order, its rows without a record listed as missing
// (with the manifest's paths and x- columns), records it does not name left out.
TEST_F(Merge, ManifestOrderAndMissingRows) {
  add_row("zeta", "ok", "b", {{"x-title", "Zeta"}});
  add_row("alpha", "ok", "a", {{"x-title", "Alpha"}});
  add_row("stray", "ok", "a");
  const fs::path manifest = dir_ / "catalogue.csv";
  write_file(manifest,
             "id,ref,dist,x-title\r\nzeta,ref.y4m,zeta.mp4,Zeta\r\n"
             "later,ref.y4m,later.mp4,\"Later, maybe\"\r\nalpha,ref.y4m,alpha.mp4,Alpha\r\n");
  const Result result = merge({dir_.string(), "--manifest", manifest.string()});
  EXPECT_EQ(result.code, 6) << result.error_output;
  EXPECT_NE(result.error_output.find("stray"), std::string::npos) << result.error_output;
  const auto rows = csv_records(dir_ / "summary.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("id"), "zeta");
  EXPECT_EQ(rows[1].at("id"), "later");
  EXPECT_EQ(rows[1].at("status"), "missing");
  EXPECT_EQ(rows[1].at("x-title"), "Later, maybe");
  EXPECT_EQ(fs::path(rows[1].at("dist")).filename(), "later.mp4");
  EXPECT_EQ(rows[1].at("vmaf_mean"), "");
  EXPECT_EQ(rows[2].at("id"), "alpha");
  EXPECT_EQ(rows[2].at("status"), "ok");
  const json summary = json::parse(read_text(dir_ / "summary.json"));
  EXPECT_EQ(summary["counts"], json({{"ok", 2}, {"failed", 0}, {"missing", 1}}));
}

// The x- columns of every row, after error; a row without one has an empty cell.
TEST_F(Merge, ExtraColumns) {
  add_row("one", "ok", "a", {{"x-title", "A, \"B\"\nsecond line"}, {"x-crf", "23"}});
  add_row("two", "ok", "b", {{"x-crf", "30"}, {"x-codec", "av1"}});
  ASSERT_EQ(merge({dir_.string()}).code, 0);
  const auto header = parse_csv(read_text(dir_ / "summary.csv")).at(0);
  ASSERT_GE(header.size(), 9u);
  EXPECT_EQ(std::vector<std::string>(header.begin() + 5, header.begin() + 9),
            (std::vector<std::string>{"error", "x-title", "x-crf", "x-codec"}));
  const auto rows = csv_records(dir_ / "summary.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("x-title"), "A, \"B\"\nsecond line");
  EXPECT_EQ(rows[0].at("x-crf"), "23");
  EXPECT_EQ(rows[0].at("x-codec"), "");
  EXPECT_EQ(rows[1].at("x-title"), "");
  EXPECT_EQ(rows[1].at("x-codec"), "av1");
  const json summary = json::parse(read_text(dir_ / "summary.json"));
  EXPECT_EQ(summary["rows"][0]["x-title"], "A, \"B\"\nsecond line");
  EXPECT_TRUE(summary["rows"][1]["x-title"].is_null());
}

// A record or log that cannot be used fails its row, with the reason naming
// the file; the other rows are merged.
TEST_F(Merge, CorruptRecordOrLogFailsOnlyItsRow) {
  add_row("good", "ok", "b");
  add_row("cut_log", "ok");
  const std::string log = read_text(dir_ / "cut_log.json");
  write_file(dir_ / "cut_log.json", log.substr(0, log.size() / 2));
  add_row("no_log", "ok");
  fs::remove(dir_ / "no_log.json");
  add_row("not_a_log", "ok");
  write_file(dir_ / "not_a_log.json", "{\"frames\": 3}");
  write_file(dir_ / "rows" / "cut_record.json", "{\"id\": \"cut_record\", \"sta");
  write_file(dir_ / "rows" / "array.json", "[1, 2]");
  add_row("renamed", "ok");
  fs::rename(dir_ / "rows" / "renamed.json", dir_ / "rows" / "other.json");
  add_row("odd_status", "running");
  const Result result = merge({dir_.string()});
  EXPECT_EQ(result.code, 6) << result.error_output;
  const auto rows = csv_records(dir_ / "summary.csv");
  std::map<std::string, std::map<std::string, std::string>> by_id;
  for (const auto& row : rows) by_id[row.at("id")] = row;
  ASSERT_EQ(by_id.size(), 8u);
  EXPECT_EQ(by_id["good"].at("status"), "ok");
  EXPECT_EQ(by_id["good"].at("vmaf_mean"), exact(log_of("b")["pooled_metrics"]["vmaf"]["mean"]));
  const std::map<std::string, std::string> reasons = {
      {"cut_log", "cut_log.json is unusable: it is not JSON"},
      {"no_log", "no_log.json cannot be read"},
      {"not_a_log", "no \"frames\" list"},
      {"cut_record", "rows/cut_record.json is not a JSON object"},
      {"array", "rows/array.json is not a JSON object"},
      {"other", "names the id \"renamed\""},
      {"odd_status", "\"running\", neither ok nor failed"}};
  for (const auto& [id, reason] : reasons) {
    EXPECT_EQ(by_id[id].at("status"), "failed") << id;
    EXPECT_NE(by_id[id].at("error").find(reason), std::string::npos)
        << id << ": " << by_id[id].at("error");
    EXPECT_EQ(by_id[id].at("vmaf_mean"), "") << id;
  }
}

// A run that fails leaves the summary already there as it was, and no
// temporary file; one that succeeds replaces every output.
TEST_F(Merge, OutputsReplacedWhole) {
  add_row("clip", "ok");
  for (const char* name : {"summary.csv", "summary.json", "report.html"})
    write_file(dir_ / name, std::string("earlier ") + name);
  const auto unchanged = [&] {
    for (const char* name : {"summary.csv", "summary.json", "report.html"})
      EXPECT_EQ(read_text(dir_ / name), std::string("earlier ") + name) << name;
    EXPECT_EQ(hidden_files(dir_), std::vector<std::string>());
  };
  // The page's folder is missing: nothing is written, the CSV and JSON neither.
  Result result = merge({dir_.string(), "--html", (dir_ / "missing" / "page.html").string()});
  EXPECT_EQ(result.code, 5) << result.error_output;
  EXPECT_NE(result.error_output.find("missing"), std::string::npos) << result.error_output;
  unchanged();
  // A page that is a folder.
  fs::create_directories(dir_ / "page.html");
  result = merge({dir_.string(), "--html", (dir_ / "page.html").string()});
  EXPECT_EQ(result.code, 5) << result.error_output;
  unchanged();
  // No records (the records moved away).
  fs::rename(dir_ / "rows", dir_ / "rows.away");
  result = merge({dir_.string()});
  EXPECT_EQ(result.code, 2) << result.error_output;
  EXPECT_NE(result.error_output.find("holds no records"), std::string::npos);
  unchanged();
  fs::rename(dir_ / "rows.away", dir_ / "rows");
  ASSERT_EQ(merge({dir_.string()}).code, 0);
  EXPECT_EQ(csv_records(dir_ / "summary.csv").size(), 1u);
  EXPECT_EQ(json::parse(read_text(dir_ / "summary.json"))["rows"].size(), 1u);
  EXPECT_NE(read_text(dir_ / "report.html").find("<html"), std::string::npos);
  EXPECT_EQ(hidden_files(dir_), std::vector<std::string>());
}

#ifdef VMAFEXACT_TEST_HAVE_LIBXML2
// The elements with attribute `name` = `value` (depth first).
std::vector<xmlNode*> elements_with(xmlNode* node, const char* name, const char* value) {
  std::vector<xmlNode*> found;
  for (; node != nullptr; node = node->next) {
    if (node->type == XML_ELEMENT_NODE) {
      if (xmlChar* attribute = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name))) {
        if (std::string_view(reinterpret_cast<const char*>(attribute)) == value)
          found.push_back(node);
        xmlFree(attribute);
      }
    }
    for (xmlNode* inner : elements_with(node->children, name, value)) found.push_back(inner);
  }
  return found;
}

std::size_t body_rows(xmlNode* table) {
  std::size_t rows = 0;
  for (xmlNode* part = table->children; part != nullptr; part = part->next) {
    if (part->type != XML_ELEMENT_NODE || std::string_view((const char*)part->name) != "tbody")
      continue;
    for (xmlNode* row = part->children; row != nullptr; row = row->next)
      rows += row->type == XML_ELEMENT_NODE ? 1 : 0;
  }
  return rows;
}
#endif

// Many rows: the page (well-formed XML, as the report's pages are) lists every
// row in its table, plots only the 20 of lowest VMAF and says so; text from a
// record that is markup or control characters stays text.
TEST_F(Merge, PageListsEveryRowAndPlotsTwenty) {
#ifndef VMAFEXACT_TEST_HAVE_LIBXML2
  GTEST_SKIP() << "libxml2's headers were not found";
#else
  for (int i = 0; i < 25; ++i) add_row("row" + std::to_string(100 + i), "ok", i % 2 ? "a" : "b");
  add_row("broken", "failed", "a", {{"x-note", "<b>bold</b> & \x01"}},
          "<script>alert(1)</script>\x02 & done\n  advice line");
  const Result result = merge({dir_.string()});
  ASSERT_EQ(result.code, 6) << result.error_output;
  const std::string page = read_text(dir_ / "report.html");
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_NE(page.find(" &amp; done<br/>  advice line</td>"), std::string::npos);
  const vmafexact::test::XmlDocPtr doc = vmafexact::test::parse_strict_xml(page);
  ASSERT_TRUE(doc) << "the page is not well-formed XML";
  xmlNode* root = xmlDocGetRootElement(doc.get());
  const auto every_row = elements_with(root, "id", "rows");
  ASSERT_EQ(every_row.size(), 1u);
  EXPECT_EQ(body_rows(every_row.front()), 26u);
  // The report library's summary: the plotted rows.
  const auto plotted = elements_with(root, "id", "summary");
  ASSERT_EQ(plotted.size(), 1u);
  EXPECT_EQ(body_rows(plotted.front()), 20u);
  EXPECT_NE(page.find("only the 20 rows of lowest vmaf mean, of 25 ok rows"), std::string::npos);
  // The lowest are the noisier encode's (b): every one of them is plotted.
  for (int i = 0; i < 25; i += 2)
    EXPECT_NE(page.find("<th scope=\"row\" title=\"" + (folder_ / "dist_b.y4m").string() +
                        "\">row" + std::to_string(100 + i) + "</th>"),
              std::string::npos)
        << i;
#endif
}

// No row ok: the page still is one (the table, nothing plotted, said so).
TEST_F(Merge, PageWithNoRowOk) {
#ifndef VMAFEXACT_TEST_HAVE_LIBXML2
  GTEST_SKIP() << "libxml2's headers were not found";
#else
  add_row("one", "failed", "a", json::object(), "boom");
  write_file(dir_ / "rows" / "two.json", "");
  ASSERT_EQ(merge({dir_.string()}).code, 6);
  const std::string page = read_text(dir_ / "report.html");
  const vmafexact::test::XmlDocPtr doc = vmafexact::test::parse_strict_xml(page);
  ASSERT_TRUE(doc) << "the page is not well-formed XML";
  const auto every_row = elements_with(xmlDocGetRootElement(doc.get()), "id", "rows");
  ASSERT_EQ(every_row.size(), 1u);
  EXPECT_EQ(body_rows(every_row.front()), 2u);
  EXPECT_NE(page.find("No row is ok: nothing to plot."), std::string::npos);
#endif
}

TEST_F(Merge, UsageAndInputErrors) {
  add_row("clip", "ok");
  EXPECT_EQ(merge({}).code, 1);
  EXPECT_EQ(merge({dir_.string(), dir_.string()}).code, 1);
  EXPECT_EQ(merge({dir_.string(), "--bogus"}).code, 1);
  const Result same =
      merge({dir_.string(), "--csv", (dir_ / "s").string(), "--json", (dir_ / "s").string()});
  EXPECT_EQ(same.code, 1);
  EXPECT_NE(same.error_output.find("name the same file"), std::string::npos) << same.error_output;
  // An output that is what merge reads.
  const std::string log = read_text(dir_ / "clip.json");
  for (const fs::path& input : {dir_ / "clip.json", dir_ / "rows" / "x.csv"}) {
    const Result over = merge({dir_.string(), "--csv", input.string()});
    EXPECT_EQ(over.code, 1) << input;
    EXPECT_NE(over.error_output.find("would destroy what merge reads"), std::string::npos)
        << over.error_output;
  }
  EXPECT_EQ(read_text(dir_ / "clip.json"), log);
  EXPECT_FALSE(fs::exists(dir_ / "rows" / "x.csv"));
  const Result absent = merge({(dir_ / "absent").string()});
  EXPECT_EQ(absent.code, 2);
  EXPECT_NE(absent.error_output.find("absent"), std::string::npos) << absent.error_output;
  fs::remove_all(dir_ / "rows");
  fs::create_directories(dir_ / "rows");
  EXPECT_EQ(merge({dir_.string()}).code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "summary.csv"));
}

}  // namespace

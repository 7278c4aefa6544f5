// `vmafexact batch`'s manifest (tools/vmafexact/manifest.h): CSV and JSON
// Lines read into rows, every refusal naming the file and line, the files it
// will not read, and the shares of a job array: --shard, Slurm's and a
// Kubernetes Indexed Job's variables each split a manifest without overlap or
// gap.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "errors.h"
#include "manifest.h"

namespace cli = vmafexact::cli;
using cli::CliError;
using cli::Manifest;
using cli::ManifestRow;
using cli::Shard;
using ::testing::HasSubstr;
using Pairs = std::vector<std::pair<std::string, std::string>>;

namespace {

Manifest parse(std::string_view text, const std::string& name = "/data/m.csv") {
  return cli::parse_manifest(text, name, "/data");
}

// The error parsing `text` throws (a test failure when none is thrown).
CliError parse_error(std::string_view text, const std::string& name = "/data/m.csv") {
  try {
    parse(text, name);
  } catch (const CliError& error) {
    return error;
  }
  ADD_FAILURE() << "no error for: " << text.substr(0, 200);
  return CliError(cli::kExitOk, "");
}

// The message of that error, with its advice after " | ".
std::string refusal(std::string_view text, const std::string& name = "/data/m.csv") {
  const CliError error = parse_error(text, name);
  EXPECT_EQ(error.code(), cli::kExitUsage);
  const std::string message = error.what();
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  return message + " | " + error.advice();
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "manifest-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string write(const std::string& name, std::string_view text) const {
    const std::filesystem::path file = path_ / name;
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

using Environment = std::map<std::string, std::string>;

std::optional<Shard> shard_from(const Environment& environment) {
  return cli::shard_from_environment([&](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  });
}

std::string shard_refusal(const Environment& environment) {
  try {
    shard_from(environment);
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), cli::kExitUsage);
    return std::string(error.what()) + " | " + error.advice();
  }
  ADD_FAILURE() << "no error";
  return {};
}

std::string shard_text_refusal(std::string_view text) {
  try {
    cli::parse_shard(text);
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), cli::kExitUsage);
    return std::string(error.what()) + " | " + error.advice();
  }
  ADD_FAILURE() << "no error for --shard " << text;
  return {};
}

std::string csv_of(std::size_t rows) {
  std::string text = "id,ref,dist\n";
  for (std::size_t i = 0; i < rows; ++i)
    text += "row" + std::to_string(i) + ",r" + std::to_string(i) + ".y4m,d.mp4\n";
  return text;
}

}  // namespace

// ---------------------------------------------------------------- CSV

TEST(ManifestCsv, ReadsRowsOptionsAndExtrasInColumnOrder) {
  const Manifest manifest = parse(
      "id,ref,dist,model,x-crf,no_scale,features\n"
      "a,ref/a.y4m,enc/a.mp4,vmaf_v0.6.1,23,yes,psnr\n"
      "b,/abs/b.y4m,../enc/b.mp4,,,,\n");
  EXPECT_EQ(manifest.path, "/data/m.csv");
  ASSERT_EQ(manifest.rows.size(), 2u);
  const ManifestRow& a = manifest.rows[0];
  EXPECT_EQ(a.position, 0u);
  EXPECT_EQ(a.line, 2u);
  EXPECT_EQ(a.id, "a");
  EXPECT_EQ(a.ref, "/data/ref/a.y4m");
  EXPECT_EQ(a.dist, "/data/enc/a.mp4");
  EXPECT_EQ(a.options,
            (Pairs{{"model", "vmaf_v0.6.1"}, {"no-scale", "true"}, {"features", "psnr"}}));
  EXPECT_EQ(a.extra, (Pairs{{"x-crf", "23"}}));
  const ManifestRow& b = manifest.rows[1];
  EXPECT_EQ(b.position, 1u);
  EXPECT_EQ(b.line, 3u);
  EXPECT_EQ(b.ref, "/abs/b.y4m");
  EXPECT_EQ(b.dist, "/enc/b.mp4");  // lexically normal
  EXPECT_TRUE(b.options.empty());   // empty cells give nothing
  EXPECT_TRUE(b.extra.empty());
}

TEST(ManifestCsv, QuotedCellsKeepTheirTextAndLinesCountOn) {
  const Manifest manifest = parse(
      "id,ref,dist,x-note\n"
      "a,\"dir, with comma/a.y4m\",\"say \"\"hi\"\".mp4\",\"two\nlines\"\n"
      "\"c\",c.y4m,c.mp4,\"\"\"\"\n"
      "d,d.y4m,d.mp4,\"\r\n\r\n\"\n"
      "e,e.y4m,e.mp4,\"\"\n");
  ASSERT_EQ(manifest.rows.size(), 4u);
  EXPECT_EQ(manifest.rows[0].ref, "/data/dir, with comma/a.y4m");
  EXPECT_EQ(manifest.rows[0].dist, "/data/say \"hi\".mp4");
  EXPECT_EQ(manifest.rows[0].extra, (Pairs{{"x-note", "two\nlines"}}));
  EXPECT_EQ(manifest.rows[1].id, "c");
  EXPECT_EQ(manifest.rows[1].line, 4u);  // row a spans lines 2 and 3
  EXPECT_EQ(manifest.rows[1].extra, (Pairs{{"x-note", "\""}}));
  EXPECT_EQ(manifest.rows[2].extra, (Pairs{{"x-note", "\r\n\r\n"}}));
  EXPECT_EQ(manifest.rows[3].line, 8u);  // d spans lines 5 to 7
  EXPECT_TRUE(manifest.rows[3].extra.empty());
}

TEST(ManifestCsv, CrlfBomLoneCrAndBlankLines) {
  const Manifest crlf =
      parse("\xEF\xBB\xBFid,ref,dist\r\n\r\na,a.y4m,a.mp4\r\n  \r\n,,\r\nb,b,b\r\n");
  ASSERT_EQ(crlf.rows.size(), 2u);
  EXPECT_EQ(crlf.rows[0].id, "a");              // the BOM is not part of the first column's name
  EXPECT_EQ(crlf.rows[0].dist, "/data/a.mp4");  // no \r left on the last cell
  EXPECT_EQ(crlf.rows[0].line, 3u);
  EXPECT_EQ(crlf.rows[1].line, 6u);
  const Manifest lone_cr = parse("id,ref,dist\ra,a,a\rb,b,b");  // no final line break
  ASSERT_EQ(lone_cr.rows.size(), 2u);
  EXPECT_EQ(lone_cr.rows[1].line, 3u);
  EXPECT_EQ(lone_cr.rows[1].dist, "/data/b");
}

TEST(ManifestCsv, HeaderOnlyHasNoRowsAndHeaderNamesAreTrimmed) {
  EXPECT_TRUE(parse("\n\nid,ref,dist\n").rows.empty());
  EXPECT_EQ(parse("\"id\",\"ref\",\"dist\"\n\"a\",\"a\",\"a\"\n").rows.size(), 1u);
  const Manifest manifest = parse("id , ref,\tdist\na,a,a\n");
  ASSERT_EQ(manifest.rows.size(), 1u);
  EXPECT_EQ(manifest.rows[0].ref, "/data/a");
}

TEST(ManifestCsv, EveryOptionColumnIsAcceptedAndFlagsReadAsBooleans) {
  const std::vector<std::string>& options = cli::manifest_option_columns();
  EXPECT_TRUE(std::is_sorted(options.begin(), options.end()));
  EXPECT_EQ(options.size(), 24u);
  std::string header = "id,ref,dist", row = "a,a,a";
  for (const std::string& option : options) {
    header += "," + option;
    row += cli::manifest_column_is_flag(option) ? ",0" : ",v-" + option;
  }
  const Manifest manifest = parse(header + "\n" + row + "\n");
  ASSERT_EQ(manifest.rows[0].options.size(), options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    EXPECT_EQ(manifest.rows[0].options[i].first, options[i]);
    EXPECT_EQ(manifest.rows[0].options[i].second,
              cli::manifest_column_is_flag(options[i]) ? "false" : "v-" + options[i]);
  }
  EXPECT_TRUE(cli::manifest_column_is_flag("no-scale"));
  EXPECT_TRUE(cli::manifest_column_is_flag("no-rate-conversion"));
  EXPECT_FALSE(cli::manifest_column_is_flag("model"));

  for (const auto& [written, stored] :
       std::vector<std::pair<std::string, std::string>>{{"true", "true"},
                                                        {"TRUE", "true"},
                                                        {"1", "true"},
                                                        {"Yes", "true"},
                                                        {"false", "false"},
                                                        {"0", "false"},
                                                        {"no", "false"},
                                                        {"FALSE", "false"}}) {
    const Manifest flags = parse("id,ref,dist,no-rate-conversion\na,a,a," + written + "\n");
    EXPECT_EQ(flags.rows[0].options, (Pairs{{"no-rate-conversion", stored}})) << written;
  }
}

TEST(ManifestCsv, UnderscoresReadAsDashesExceptInExtraNames) {
  const Manifest manifest =
      parse("id,ref,dist,scale_method,x_my_note,x-Other\na,a,a,bicubic,n1,n2\n");
  EXPECT_EQ(manifest.rows[0].options, (Pairs{{"scale-method", "bicubic"}}));
  EXPECT_EQ(manifest.rows[0].extra, (Pairs{{"x-my_note", "n1"}, {"x-Other", "n2"}}));
}

TEST(ManifestCsv, IdsOfEveryAllowedShape) {
  const std::string longest(cli::kManifestMaxIdBytes, 'a');
  const Manifest manifest =
      parse("id,ref,dist\n0,a,a\nZ.9_x-y,a,a\nsummary2,a,a\nSummary.v2,a,a\n" + longest + ",a,a\n");
  ASSERT_EQ(manifest.rows.size(), 5u);
  EXPECT_EQ(manifest.rows[4].id, longest);
}

TEST(ManifestCsv, RowsWithAnotherCellCountAreRefusedNamingTheLine) {
  EXPECT_THAT(refusal("id,ref,dist\na,a,a\nb,b\n"),
              HasSubstr("/data/m.csv:3: 2 cells where the header (line 1) has 3 columns"));
  EXPECT_THAT(refusal("id,ref,dist\na,a,a,\n"), HasSubstr("m.csv:2: 4 cells"));
  EXPECT_THAT(refusal("id,ref,dist\na,\"x\ny\",a,b\n"), HasSubstr("m.csv:2: 4 cells"));
}

TEST(ManifestCsv, BadQuotingIsRefusedNamingTheLine) {
  EXPECT_THAT(refusal("id,ref,dist\na,a,a\nb,\"open\n\n"),
              HasSubstr("m.csv:3: a quoted cell is not closed"));
  EXPECT_THAT(refusal("id,ref,dist\na,\"a\"x,a\n"),
              HasSubstr("m.csv:2: text after a quoted cell's closing quote"));
  EXPECT_THAT(refusal("id,ref,dist\na,a\"b,a\n"),
              HasSubstr("m.csv:2: a quote inside a cell that does not start with one"));
  EXPECT_THAT(refusal("id,ref,dist\na,a\"b,a\n"), HasSubstr("\"\"hi\"\""));  // how to quote
}

TEST(ManifestCsv, MissingRequiredColumnsAreNamedWithAnExample) {
  const std::string message = refusal("id,dist\na,a\n");
  EXPECT_THAT(message, HasSubstr("m.csv:1: the header row has no 'ref' column"));
  EXPECT_THAT(message, HasSubstr("id,ref,dist,model"));
  EXPECT_THAT(refusal("\n\nref\n"),
              HasSubstr("m.csv:3: the header row has no 'id', 'dist' column"));
  EXPECT_THAT(refusal(""), HasSubstr("m.csv: the manifest is empty: it has no header row"));
  EXPECT_THAT(refusal("\xEF\xBB\xBF\r\n\n"), HasSubstr("the manifest is empty"));
}

TEST(ManifestCsv, UnknownColumnsAreRefusedListingTheAccepted) {
  const std::string message = refusal("id,ref,dist,modle\n");
  EXPECT_THAT(message, HasSubstr("m.csv:1: unknown column 'modle'"));
  EXPECT_THAT(message, HasSubstr("model, "));
  EXPECT_THAT(message, HasSubstr("no-rate-conversion"));
  EXPECT_THAT(message, HasSubstr("x-NAME"));
  EXPECT_THAT(refusal("id,ref,dist,Model\n"), HasSubstr("lowercase ('model')"));
  EXPECT_THAT(refusal("ID,ref,dist\n"), HasSubstr("unknown column 'ID'"));
  EXPECT_THAT(refusal("id,ref,dist,threads\n"),
              HasSubstr("m.csv:1: the column 'threads' cannot be set per row"));
  EXPECT_THAT(refusal("id,ref,dist,json\n"), HasSubstr("give --json to vmafexact batch"));
  EXPECT_THAT(refusal("id,ref,dist,x-\n"), HasSubstr("m.csv:1: the column 'x-' has no name"));
  EXPECT_THAT(refusal("id,,ref,dist\n"), HasSubstr("m.csv:1: a column has no name"));
  EXPECT_THAT(refusal("id,ref,dist,no_scale,no-scale\n"),
              HasSubstr("m.csv:1: the column 'no-scale' is named twice (columns 4 and 5)"));
  EXPECT_THAT(refusal("id,ref,dist,x-a,x_a\n"), HasSubstr("'x-a' is named twice"));
}

TEST(ManifestCsv, BadIdsAreRefusedNamingTheLine) {
  EXPECT_THAT(refusal("id,ref,dist\na,a,a\n,b,b\n"), HasSubstr("m.csv:3: the id is empty"));
  for (const std::string bad : {"-a", ".a", "_a", "a/b", "a b", "..", "é", "a\\b", "a:b"})
    EXPECT_THAT(refusal("id,ref,dist\n\"" + bad + "\",a,a\n"),
                HasSubstr("m.csv:2: the id '" + bad + "' is not a file name"))
        << bad;
  const std::string too_long(cli::kManifestMaxIdBytes + 1, 'a');
  EXPECT_THAT(refusal("id,ref,dist\n" + too_long + ",a,a\n"), HasSubstr("at most 128 bytes"));
  EXPECT_THAT(refusal("id,ref,dist\nsummary,a,a\n"),
              HasSubstr("m.csv:2: the id 'summary' is reserved"));
  EXPECT_THAT(refusal("id,ref,dist\na,a,a\nb,b,b\n\na,c,c\n"),
              HasSubstr("m.csv:5: the id 'a' is given twice: lines 2 and 5"));
}

TEST(ManifestCsv, EmptyPathsAndBadValuesAreRefusedNamingTheLine) {
  EXPECT_THAT(refusal("id,ref,dist\na,a,a\nb,,b\n"), HasSubstr("m.csv:3: ref is empty"));
  EXPECT_THAT(refusal("id,ref,dist\nb,b,\"\"\n"), HasSubstr("m.csv:2: dist is empty"));
  EXPECT_THAT(refusal("id,ref,dist,no-scale\na,a,a,maybe\n"),
              HasSubstr("m.csv:2: no-scale is 'maybe', not true or false"));
  EXPECT_THAT(refusal(std::string("id,ref,dist\na,a\0b,a\n", 20)),
              HasSubstr("m.csv:2: ref holds a NUL character"));
  // A value shown in a message stays on one line.
  EXPECT_THAT(refusal("id,ref,dist\n\"a\nb\",a,a\n"), HasSubstr("the id 'a\\x0ab'"));
}

TEST(ManifestCsv, LimitsAgainstHostileInput) {
  const std::string long_cell(cli::kManifestMaxCellBytes + 1, 'p');
  EXPECT_THAT(refusal("id,ref,dist\na," + long_cell + ",a\n"),
              HasSubstr("m.csv:2: a cell longer than 65536 bytes"));
  EXPECT_THAT(refusal("id,ref,dist\na,\"" + long_cell + "\",a\n"), HasSubstr("a cell longer than"));
  EXPECT_THAT(refusal("id,ref,dist\n" + std::string(cli::kManifestMaxColumns + 1, ',') + "\n"),
              HasSubstr("m.csv:2: more than 256 cells in one row"));
  // Many short lines and a cell of all quotes read in linear time.
  const Manifest quotes = parse("id,ref,dist\na,\"" + std::string(60000, '"') + "\",a\n");
  EXPECT_EQ(quotes.rows[0].ref, "/data/" + std::string(30000, '"'));
  EXPECT_TRUE(parse("id,ref,dist\n" + std::string(1 << 20, '\n')).rows.empty());
}

// ---------------------------------------------------------------- JSON Lines

TEST(ManifestJsonLines, ReadsObjectsWithStringsNumbersAndBooleans) {
  const Manifest manifest = parse(
      "# a comment\n"
      "\n"
      "{\"id\": \"a\", \"ref\": \"r/a.y4m\", \"dist\": \"/d/a.mp4\", \"subsample\": 2,"
      " \"dist_delay\": 1.50, \"align-range\": 1e1, \"start\": -0.5, \"no-scale\": true,"
      " \"x-crf\": 23, \"x-ok\": false, \"model\": null, \"features\": \"\"}\r\n"
      "   # indented comment\n"
      "{\"id\": 7, \"dist\": \"b\", \"ref\": \"b\", \"no_rate_conversion\": 0}\n",
      "/data/m.jsonl");
  ASSERT_EQ(manifest.rows.size(), 2u);
  const ManifestRow& a = manifest.rows[0];
  EXPECT_EQ(a.line, 3u);
  EXPECT_EQ(a.ref, "/data/r/a.y4m");
  EXPECT_EQ(a.dist, "/d/a.mp4");
  EXPECT_EQ(a.options, (Pairs{{"subsample", "2"},
                              {"dist-delay", "1.50"},  // numbers as written
                              {"align-range", "1e1"},
                              {"start", "-0.5"},
                              {"no-scale", "true"}}));
  EXPECT_EQ(a.extra, (Pairs{{"x-crf", "23"}, {"x-ok", "false"}}));
  const ManifestRow& b = manifest.rows[1];
  EXPECT_EQ(b.id, "7");
  EXPECT_EQ(b.line, 5u);
  EXPECT_EQ(b.position, 1u);
  EXPECT_EQ(b.options, (Pairs{{"no-rate-conversion", "false"}}));
  EXPECT_EQ(parse("{\"id\":\"c\",\"ref\":\"c\",\"dist\":\"c\",\"x_note\":\"n\"}", "m.jsonl")
                .rows[0]
                .extra,
            (Pairs{{"x-note", "n"}}));
  EXPECT_TRUE(parse("\n# only comments\n", "m.ndjson").rows.empty());
}

TEST(ManifestJsonLines, FormatFromTheExtensionElseTheFirstCharacter) {
  const std::string jsonl = "\xEF\xBB\xBF \n {\"id\":\"a\",\"ref\":\"a\",\"dist\":\"a\"}\n";
  EXPECT_EQ(parse(jsonl, "/data/list").rows.size(), 1u);      // '{' first
  EXPECT_EQ(parse(jsonl, "/data/list.txt").rows.size(), 1u);  // unknown extension
  EXPECT_EQ(parse("id,ref,dist\na,a,a\n", "/data/m.JSONL.csv").rows.size(), 1u);
  EXPECT_EQ(parse("id,ref,dist\na,a,a\n", "/data/m").rows.size(), 1u);
  // The extension wins over the content.
  EXPECT_THAT(refusal("id,ref,dist\n", "/data/m.ndjson"), HasSubstr("m.ndjson:1: not valid JSON"));
  EXPECT_THAT(refusal(jsonl, "/data/m.CSV"), HasSubstr("m.CSV:2:"));
}

TEST(ManifestJsonLines, LinesThatAreNotFlatObjectsAreRefusedNamingTheLine) {
  const std::string good = "{\"id\":\"a\",\"ref\":\"a\",\"dist\":\"a\"}\n";
  const auto error_on_line_2 = [&](const std::string& line) {
    return refusal(good + line, "m.jsonl");
  };
  EXPECT_THAT(error_on_line_2("[1, 2]"),
              HasSubstr("m.jsonl:2: the line is an array, not an object"));
  EXPECT_THAT(error_on_line_2("\"text\""), HasSubstr("m.jsonl:2: the line is a JSON value"));
  EXPECT_THAT(error_on_line_2("42"), HasSubstr("m.jsonl:2: the line is a JSON value"));
  EXPECT_THAT(error_on_line_2("id,ref,dist"), HasSubstr("m.jsonl:2: not valid JSON"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\""), HasSubstr("m.jsonl:2: not valid JSON"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\"} {}"), HasSubstr("m.jsonl:2: not valid JSON"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"x-o\":{\"a\":1}}"),
              HasSubstr("m.jsonl:2: 'x-o' is an object"));
  EXPECT_THAT(error_on_line_2("{\"id\":[\"b\"]}"), HasSubstr("m.jsonl:2: 'id' is an array"));
  EXPECT_THAT(error_on_line_2(std::string(100000, '[')), HasSubstr("m.jsonl:2:"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"a\",\"id\":\"b\"}"),
              HasSubstr("m.jsonl:2: the key 'id' is given twice"));
  EXPECT_THAT(error_on_line_2("{\"no_scale\":true,\"no-scale\":false}"),
              HasSubstr("m.jsonl:2: the key 'no-scale' is given twice"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":\"b\",\"dist\":\"b\",\"modle\":\"x\"}"),
              HasSubstr("m.jsonl:2: unknown column 'modle'"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: the row has no ref"));
  EXPECT_THAT(error_on_line_2("{\"id\":null,\"ref\":\"b\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: the row has no id"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":\"\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: ref is empty"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":true,\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: ref is true, not a value it takes"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":3,\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: ref is 3, not a path"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":\"b\",\"dist\":\"b\",\"model\":false}"),
              HasSubstr("m.jsonl:2: model is false"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":\"b\",\"dist\":\"b\",\"no-scale\":\"si\"}"),
              HasSubstr("m.jsonl:2: no-scale is 'si', not true or false"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":\"b\\u0000c\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: ref holds a NUL character"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"a\",\"ref\":\"b\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: the id 'a' is given twice: lines 1 and 2"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"summary\",\"ref\":\"b\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: the id 'summary' is reserved"));
  EXPECT_THAT(error_on_line_2("{\"id\":1.5e400,\"ref\":\"b\",\"dist\":\"b\"}"),
              HasSubstr("m.jsonl:2: not valid JSON"));
  EXPECT_THAT(error_on_line_2("{\"id\":\"b\",\"ref\":\"b\",\"dist\":\"b\"," +
                              std::string(cli::kManifestMaxLineBytes, ' ') + "}"),
              HasSubstr("m.jsonl:2: a line longer than 1048576 bytes"));
  std::string many_keys = "{";
  for (std::size_t i = 0; i <= cli::kManifestMaxColumns; ++i)
    many_keys += "\"x-" + std::to_string(i) + "\":1,";
  many_keys.back() = '}';
  EXPECT_THAT(error_on_line_2(many_keys), HasSubstr("m.jsonl:2: more than 256 keys"));
  EXPECT_THAT(refusal("{\"id\":\"b\",\"ref\":\"b\",\"dist\":\"\xff\"}", "m.jsonl"),
              HasSubstr("m.jsonl:1: not valid JSON"));
}

// ---------------------------------------------------------------- files

TEST(ManifestFile, ReadsAFileResolvingPathsAgainstItsFolder) {
  TempDir dir;
  std::filesystem::create_directory(dir.path() / "sub");
  const std::string path = dir.write("sub/m.csv", "id,ref,dist\na,../r.y4m,d.mp4\n");
  const Manifest manifest = cli::read_manifest(path);
  EXPECT_EQ(manifest.path, path);
  ASSERT_EQ(manifest.rows.size(), 1u);
  EXPECT_EQ(manifest.rows[0].ref, (dir.path() / "r.y4m").string());
  EXPECT_EQ(manifest.rows[0].dist, (dir.path() / "sub" / "d.mp4").string());

  // A path relative to the current folder still gives absolute paths.
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const Manifest relative = cli::read_manifest("sub/./m.csv");
  std::filesystem::current_path(previous);
  EXPECT_EQ(relative.rows[0].dist, (dir.path() / "sub" / "d.mp4").string());
}

TEST(ManifestFile, ReadsAPipe) {
  TempDir dir;
  const std::string fifo = (dir.path() / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer(
      [&] { std::ofstream(fifo) << "{\"id\":\"a\",\"ref\":\"a\",\"dist\":\"a\"}\n"; });
  const Manifest manifest = cli::read_manifest(fifo);
  writer.join();
  ASSERT_EQ(manifest.rows.size(), 1u);
  EXPECT_EQ(manifest.rows[0].ref, (dir.path() / "a").string());
}

TEST(ManifestFile, FilesThatCannotBeReadAreInputErrorsSayingWhy) {
  TempDir dir;
  const auto read_error = [](const std::string& path) {
    try {
      cli::read_manifest(path);
    } catch (const CliError& error) {
      EXPECT_EQ(error.code(), cli::kExitInput) << error.what();
      return std::string(error.what()) + " | " + error.advice();
    }
    ADD_FAILURE() << "no error for " << path;
    return std::string{};
  };
  const std::string missing = (dir.path() / "missing.csv").string();
  EXPECT_THAT(read_error(missing),
              HasSubstr("cannot read the manifest '" + missing + "': No such file or directory"));
  EXPECT_THAT(read_error(dir.path().string()), HasSubstr("it is a folder"));
  EXPECT_THAT(read_error("/dev/null"), HasSubstr("it is a character device"));
  if (geteuid() != 0) {
    const std::string locked = dir.write("locked.csv", "id,ref,dist\n");
    chmod(locked.c_str(), 0);
    EXPECT_THAT(read_error(locked), HasSubstr("Permission denied"));
  }
  // Too large: refused from its size, before reading (a sparse file).
  const std::string large = dir.write("large.csv", "id,ref,dist\n");
  ASSERT_EQ(truncate(large.c_str(), static_cast<off_t>(cli::kManifestMaxBytes) + 1), 0);
  try {
    cli::read_manifest(large);
    ADD_FAILURE() << "a manifest over the limit was read";
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), cli::kExitUsage);
    EXPECT_THAT(error.what(), HasSubstr("large.csv: the manifest is larger than 256 MiB"));
  }
  // Content errors in a file name the file as given.
  const std::string bad = dir.write("bad.csv", "id,ref,dist\na,a\n");
  try {
    cli::read_manifest(bad);
    ADD_FAILURE() << "no error";
  } catch (const CliError& error) {
    EXPECT_EQ(error.code(), cli::kExitUsage);
    EXPECT_THAT(error.what(), HasSubstr(bad + ":2: 2 cells"));
  }
}

// ---------------------------------------------------------------- shards

TEST(ManifestShard, ParsesIOverN) {
  const Shard shard = cli::parse_shard("2/5");
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 5u);
  EXPECT_EQ(shard.source, "--shard");
  EXPECT_EQ(cli::parse_shard("0/1").count, 1u);
  EXPECT_EQ(cli::parse_shard("007/010").index, 7u);
  EXPECT_EQ(cli::parse_shard("18446744073709551614/18446744073709551615").index,
            18446744073709551614u);
  for (const char* bad : {"", "1", "1/", "/2", "a/b", "-1/2", "+1/2", " 1/2", "1/2 ", "1/2/3",
                          "1.0/2", "0x1/2", "18446744073709551616/18446744073709551617"})
    EXPECT_THAT(shard_text_refusal(bad), HasSubstr("is not I/N")) << bad;
  EXPECT_THAT(shard_text_refusal("0/0"), HasSubstr("the count is 0"));
  EXPECT_THAT(shard_text_refusal("4/4"), HasSubstr("--shard 0/4 to --shard 3/4"));
}

// The Done-when item: each way of numbering the tasks gives every row to
// exactly one of them, for every count and manifest size.
TEST(ManifestShard, EveryWaySplitsAManifestWithoutOverlapOrGap) {
  for (std::size_t rows = 0; rows <= 40; ++rows) {
    const Manifest manifest = parse(csv_of(rows));
    ASSERT_EQ(manifest.rows.size(), rows);
    for (std::size_t count = 1; count <= 12; ++count) {
      // Slurm arrays --array=MIN-MAX:STEP for a few MIN and STEP.
      std::vector<std::pair<std::string, std::vector<Shard>>> ways(5);
      ways[0].first = "--shard";
      ways[1].first = "Slurm 0-(N-1)";
      ways[2].first = "Slurm 1-(2N-1):2";
      ways[3].first = "Slurm 5-...:3 (max past the last)";
      ways[4].first = "Kubernetes";
      for (std::size_t index = 0; index < count; ++index) {
        ways[0].second.push_back(
            cli::parse_shard(std::to_string(index) + "/" + std::to_string(count)));
        for (const auto& [way, min, step, max_extra] :
             {std::tuple{1, 0u, 1u, 0u}, std::tuple{2, 1u, 2u, 0u}, std::tuple{3, 5u, 3u, 2u}}) {
          const std::size_t max = min + step * (count - 1) + max_extra;
          const std::optional<Shard> shard = shard_from({
              {"SLURM_ARRAY_TASK_ID", std::to_string(min + step * index)},
              {"SLURM_ARRAY_TASK_MIN", std::to_string(min)},
              {"SLURM_ARRAY_TASK_MAX", std::to_string(max_extra ? max - max_extra : max)},
              {"SLURM_ARRAY_TASK_STEP", std::to_string(step)},
              {"SLURM_ARRAY_TASK_COUNT", std::to_string(count)},
          });
          ASSERT_TRUE(shard);
          EXPECT_EQ(shard->source, "SLURM_ARRAY_TASK_ID");
          ways[way].second.push_back(*shard);
        }
        const std::optional<Shard> pod =
            shard_from({{"JOB_COMPLETION_INDEX", std::to_string(index)},
                        {"VMAFEXACT_SHARD_COUNT", std::to_string(count)}});
        ASSERT_TRUE(pod);
        EXPECT_EQ(pod->source, "JOB_COMPLETION_INDEX");
        ways[4].second.push_back(*pod);
      }
      for (const auto& [way, shards] : ways) {
        std::vector<int> times_taken(rows, 0);
        for (const Shard& shard : shards) {
          EXPECT_EQ(shard.count, count) << way;
          for (const ManifestRow& row : manifest.rows)
            if (cli::in_shard(row, shard)) ++times_taken[row.position];
        }
        for (std::size_t position = 0; position < rows; ++position)
          EXPECT_EQ(times_taken[position], 1)
              << way << ": row " << position << " of " << rows << ", " << count << " tasks";
      }
    }
  }
}

TEST(ManifestShard, SlurmStepsAndTheLastTaskBelowMax) {
  // --array=1-7:2: tasks 1, 3, 5, 7 are indexes 0..3 of 4.
  for (std::size_t id : {1u, 3u, 5u, 7u}) {
    const std::optional<Shard> shard = shard_from({{"SLURM_ARRAY_TASK_ID", std::to_string(id)},
                                                   {"SLURM_ARRAY_TASK_MIN", "1"},
                                                   {"SLURM_ARRAY_TASK_MAX", "7"},
                                                   {"SLURM_ARRAY_TASK_STEP", "2"},
                                                   {"SLURM_ARRAY_TASK_COUNT", "4"}});
    ASSERT_TRUE(shard);
    EXPECT_EQ(shard->index, (id - 1) / 2);
    EXPECT_EQ(shard->count, 4u);
  }
  // No SLURM_ARRAY_TASK_STEP: a step of 1.
  const std::optional<Shard> no_step = shard_from({{"SLURM_ARRAY_TASK_ID", "12"},
                                                   {"SLURM_ARRAY_TASK_MIN", "10"},
                                                   {"SLURM_ARRAY_TASK_MAX", "13"},
                                                   {"SLURM_ARRAY_TASK_COUNT", "4"}});
  ASSERT_TRUE(no_step);
  EXPECT_EQ(no_step->index, 2u);
  // Slurm wins over Kubernetes where both are set.
  const std::optional<Shard> both = shard_from({{"SLURM_ARRAY_TASK_ID", "1"},
                                                {"SLURM_ARRAY_TASK_MIN", "0"},
                                                {"SLURM_ARRAY_TASK_MAX", "1"},
                                                {"SLURM_ARRAY_TASK_COUNT", "2"},
                                                {"JOB_COMPLETION_INDEX", "0"}});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->source, "SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(both->index, 1u);
  // Neither (or empty values): no shard, every row.
  EXPECT_FALSE(shard_from({}));
  EXPECT_FALSE(shard_from({{"SLURM_ARRAY_TASK_ID", ""}, {"JOB_COMPLETION_INDEX", ""}}));
}

TEST(ManifestShard, InconsistentSlurmVariablesAreRefused) {
  const Environment list = {{"SLURM_ARRAY_TASK_ID", "4"},
                            {"SLURM_ARRAY_TASK_MIN", "1"},
                            {"SLURM_ARRAY_TASK_MAX", "9"},
                            {"SLURM_ARRAY_TASK_STEP", "1"},
                            {"SLURM_ARRAY_TASK_COUNT", "3"}};  // --array=1,4,9
  const std::string message = shard_refusal(list);
  EXPECT_THAT(message, HasSubstr("an array given as a list"));
  EXPECT_THAT(message, HasSubstr("--array=A-B[:S]"));
  EXPECT_THAT(message, HasSubstr("--shard I/N"));
  Environment off_step = list;
  off_step["SLURM_ARRAY_TASK_ID"] = "2";
  off_step["SLURM_ARRAY_TASK_STEP"] = "2";
  off_step["SLURM_ARRAY_TASK_COUNT"] = "5";
  EXPECT_THAT(shard_refusal(off_step), HasSubstr("not MIN, MIN+STEP, ..., MAX"));
  Environment not_number = list;
  not_number["SLURM_ARRAY_TASK_ID"] = "4a";
  EXPECT_THAT(shard_refusal(not_number), HasSubstr("SLURM_ARRAY_TASK_ID='4a' is not a number"));
  not_number = list;
  not_number["SLURM_ARRAY_TASK_STEP"] = "-1";
  EXPECT_THAT(shard_refusal(not_number), HasSubstr("SLURM_ARRAY_TASK_STEP='-1' is not a number"));
  Environment no_count = list;
  no_count.erase("SLURM_ARRAY_TASK_COUNT");
  EXPECT_THAT(shard_refusal(no_count),
              HasSubstr("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"));
  Environment zero_step = list;
  zero_step["SLURM_ARRAY_TASK_STEP"] = "0";
  EXPECT_THAT(shard_refusal(zero_step), HasSubstr("does not describe a task of an array"));
  Environment outside = list;
  outside["SLURM_ARRAY_TASK_ID"] = "10";
  EXPECT_THAT(shard_refusal(outside), HasSubstr("does not describe a task of an array"));
  // (MAX - MIN) / STEP + 1 would wrap to 0: refused, not a count of 0.
  const Environment wrap = {{"SLURM_ARRAY_TASK_ID", "0"},
                            {"SLURM_ARRAY_TASK_MIN", "0"},
                            {"SLURM_ARRAY_TASK_MAX", "18446744073709551615"},
                            {"SLURM_ARRAY_TASK_COUNT", "0"}};
  EXPECT_THAT(shard_refusal(wrap), HasSubstr("does not describe a task of an array"));
  const Environment huge = {{"SLURM_ARRAY_TASK_ID", "18446744073709551616"},
                            {"SLURM_ARRAY_TASK_MIN", "0"},
                            {"SLURM_ARRAY_TASK_MAX", "1"},
                            {"SLURM_ARRAY_TASK_COUNT", "2"}};
  EXPECT_THAT(shard_refusal(huge), HasSubstr("is not a number"));
}

TEST(ManifestShard, InconsistentKubernetesVariablesAreRefused) {
  const std::string missing = shard_refusal({{"JOB_COMPLETION_INDEX", "3"}});
  EXPECT_THAT(missing, HasSubstr("JOB_COMPLETION_INDEX is set but VMAFEXACT_SHARD_COUNT is not"));
  EXPECT_THAT(missing, HasSubstr("completions"));
  EXPECT_THAT(missing, HasSubstr("--shard $(JOB_COMPLETION_INDEX)/N"));
  EXPECT_THAT(shard_refusal({{"JOB_COMPLETION_INDEX", "4"}, {"VMAFEXACT_SHARD_COUNT", "4"}}),
              HasSubstr("JOB_COMPLETION_INDEX=4 is not below VMAFEXACT_SHARD_COUNT=4"));
  EXPECT_THAT(shard_refusal({{"JOB_COMPLETION_INDEX", "0"}, {"VMAFEXACT_SHARD_COUNT", "0"}}),
              HasSubstr("is not below VMAFEXACT_SHARD_COUNT=0"));
  EXPECT_THAT(shard_refusal({{"JOB_COMPLETION_INDEX", "x"}, {"VMAFEXACT_SHARD_COUNT", "4"}}),
              HasSubstr("JOB_COMPLETION_INDEX='x' is not a number"));
  EXPECT_THAT(shard_refusal({{"VMAFEXACT_SHARD_COUNT", "4"}}),
              HasSubstr("VMAFEXACT_SHARD_COUNT='4' is set but JOB_COMPLETION_INDEX is not"));
}

// The report from the vmafexact program: a run of two encodes writes a page
// with each encode's worst frames and their pictures (captured while scoring),
// and `vmafexact report` rebuilds the page from the run's JSON logs with the
// same summary, without pictures; bad logs are refused by name.
#include <glib.h>
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <memory>
#include <string>
#include <vector>

#include "../common/build_paths.h"
#include "../common/scratch_files.h"

using vmafexact::test::kCliPath;

namespace {

using vmafexact::test::read_file;
using vmafexact::test::ScratchFolder;

struct Result {
  int status = -1;
  std::string out, err;
};

Result run(std::vector<std::string> arguments) {
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  gchar* out = nullptr;
  gchar* err = nullptr;
  gint status = 0;
  Result result;
  if (g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_SEARCH_PATH, nullptr, nullptr, &out, &err,
                   &status, nullptr)) {
    result.status = g_spawn_check_wait_status(status, nullptr) ? 0 : WEXITSTATUS(status);
    result.out = out != nullptr ? out : "";
    result.err = err != nullptr ? err : "";
  }
  g_free(out);
  g_free(err);
  return result;
}

struct Page {
  std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> document{nullptr, &xmlFreeDoc};
  explicit Page(const std::string& text)
      : document(xmlReadMemory(text.data(), static_cast<int>(text.size()), "page.html", nullptr,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
                 &xmlFreeDoc) {}
  std::vector<std::string> texts(const std::string& expression) const {
    std::vector<std::string> found;
    if (!document) return found;
    const std::unique_ptr<xmlXPathContext, decltype(&xmlXPathFreeContext)> context(
        xmlXPathNewContext(document.get()), &xmlXPathFreeContext);
    xmlXPathRegisterNs(context.get(), BAD_CAST "h", BAD_CAST "http://www.w3.org/1999/xhtml");
    xmlXPathRegisterNs(context.get(), BAD_CAST "svg", BAD_CAST "http://www.w3.org/2000/svg");
    const std::unique_ptr<xmlXPathObject, decltype(&xmlXPathFreeObject)> result(
        xmlXPathEvalExpression(BAD_CAST expression.c_str(), context.get()), &xmlXPathFreeObject);
    if (result && result->nodesetval != nullptr) {
      for (int at = 0; at < result->nodesetval->nodeNr; ++at) {
        xmlChar* text = xmlNodeGetContent(result->nodesetval->nodeTab[at]);
        found.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
        xmlFree(text);
      }
    }
    return found;
  }
};

TEST(ReportCli, RunPageHasPicturesAndReportFromLogsTheSameSummary) {
  const ScratchFolder folder{"vmafexact-report-cli"};
  const std::string ref = folder / "ref.y4m";
  if (run({"ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=1",
           "-pix_fmt", "yuv420p", ref})
          .status != 0)
    GTEST_SKIP() << "ffmpeg (with libx264) is needed to make the encodes";
  for (const char* crf : {"22", "40"}) {
    ASSERT_EQ(run({"ffmpeg", "-v", "error", "-i", ref, "-c:v", "libx264", "-crf", crf,
                   folder / (std::string("crf") + crf + ".mp4")})
                  .status,
              0);
  }
  const Result scored = run({kCliPath, ref, folder / "crf22.mp4", folder / "crf40.mp4", "--json",
                             folder / "{name}.json", "--html", folder / "run.html", "--quiet"});
  ASSERT_EQ(scored.status, 0) << scored.err;
  const Page run_page(read_file(folder / "run.html"));
  ASSERT_TRUE(run_page.document);
  EXPECT_EQ(run_page.texts("//h:table[@class='summary']/h:tbody/h:tr/h:th"),
            (std::vector<std::string>{"crf22", "crf40"}));
  // 5 worst frames of each encode, reference and distorted: 20 pictures.
  const auto sources = run_page.texts("//h:table[@class='worst']//h:img/@src");
  ASSERT_EQ(sources.size(), 20U);
  for (const std::string& source : sources) {
    ASSERT_TRUE(source.starts_with("data:image/png;base64,"));
    gsize length = 0;
    guchar* bytes = g_base64_decode(source.c_str() + 22, &length);
    EXPECT_GT(length, 100U);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes), 4), "\x89PNG");
    g_free(bytes);
  }

  const Result rebuilt = run({kCliPath, "report", folder / "crf22.json", folder / "crf40.json",
                              "--html", folder / "logs.html"});
  ASSERT_EQ(rebuilt.status, 0) << rebuilt.err;
  const Page log_page(read_file(folder / "logs.html"));
  ASSERT_TRUE(log_page.document);
  // The same answer: names, sizes, bitrates, durations and the pooled VMAF (the
  // logs print 6 decimals, the page 6 significant digits).
  EXPECT_EQ(log_page.texts("//h:table[@class='summary']/h:tbody//h:td | "
                           "//h:table[@class='summary']/h:tbody//h:th"),
            run_page.texts("//h:table[@class='summary']/h:tbody//h:td | "
                           "//h:table[@class='summary']/h:tbody//h:th"));
  EXPECT_EQ(log_page.texts("//h:table[@class='worst']//h:img").size(), 0U);
  EXPECT_EQ(log_page.texts("//h:table[@class='worst']").size(), 2U);  // listed, no pictures
  EXPECT_EQ(log_page.texts("//svg:svg[@id='rate-quality-plot']").size(), 1U);
  // The run's provenance came through the logs.
  const auto provenance = log_page.texts("//h:table[@class='provenance']//h:td");
  ASSERT_FALSE(provenance.empty());
  EXPECT_NE(provenance[1].find("crf22.mp4"), std::string::npos) << provenance[1];  // command line
}

TEST(ReportCli, BadLogsAndMissingOutputsAreRefused) {
  const ScratchFolder folder{"vmafexact-report-cli"};
  {
    const Result missing =
        run({kCliPath, "report", folder / "none.json", "--html", folder / "x.html"});
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find("cannot read the log " + (folder / "none.json").string()),
              std::string::npos)
        << missing.err;
  }
  g_file_set_contents((folder / "truncated.json").c_str(), "{\"frames\": [{\"frameNum\": 0,", -1,
                      nullptr);
  const Result truncated =
      run({kCliPath, "report", folder / "truncated.json", "--html", folder / "x.html"});
  EXPECT_EQ(truncated.status, 2);
  EXPECT_NE(truncated.err.find("truncated.json: not a vmafexact JSON log: the text is not JSON"),
            std::string::npos)
      << truncated.err;
  EXPECT_FALSE(g_file_test((folder / "x.html").c_str(), G_FILE_TEST_EXISTS));
  const Result nothing = run({kCliPath, "report", folder / "truncated.json"});
  EXPECT_EQ(nothing.status, 1);
  EXPECT_NE(nothing.err.find("nothing to write"), std::string::npos) << nothing.err;
}

}  // namespace

// libsvm's model text (the "model" string of a libvmaf JSON model), read the
// way libvmaf 3.2.0's svm.cpp reads it, so every double is the one libvmaf gets:
//  - header words are separated by single spaces or newlines; an empty word (two
//    separators in a row) ends the header, as does the word "SV";
//  - header numbers and support vector entries are read with the C++ stream
//    operator >> in the classic locale (libstdc++ hands the text to strtod, so
//    the result is the correctly rounded double), each followed by one skipped
//    character;
//  - then total_sv lines, each "coef index:value index:value ...".
// Everything libvmaf rejects is rejected here too. Beyond that, text libvmaf
// would read into a model it cannot predict with (a missing rho or total_sv,
// nr_class other than 2, an unknown or classification svm_type, a missing
// "SV" line, a malformed entry, more support vector lines than total_sv) is
// rejected with a message naming the field.
#include <istream>
#include <locale>
#include <sstream>

#include "common/error.h"
#include "model/model_data.h"

namespace vmafexact::model {

namespace {

class HeaderReader {
 public:
  HeaderReader(std::string_view text, std::string_view origin)
      : in_(std::string(text)), origin_(origin), text_size_(text.size()) {
    in_.imbue(std::locale::classic());
  }

  // The next word up to a space or newline; false at an empty word or when the
  // text ends before a separator (libvmaf's header loop stops there too).
  bool next_word(std::string& word) {
    word.clear();
    char c = 0;
    while (in_.get(c)) {
      if (c == ' ' || c == '\n') return !word.empty();
      word.push_back(c);
    }
    return false;
  }

  template <typename T>
  void read_value(T& value, const char* field) {
    if (!(in_ >> value)) fail(std::string("cannot read the value of '") + field + "'");
    in_.ignore(1);
  }

  // Checks a count the text gives against what the text can hold (a value
  // and its separator take at least two characters) before anything is
  // allocated for it.
  void check_count(long count, const char* field) const {
    if (count > static_cast<long>(text_size_ / 2) + 1)
      fail(std::string(field) + " counts " + std::to_string(count) +
           " values, more than the text can hold");
  }

  template <typename T>
  void read_values(std::vector<T>& values, long count, const char* field) {
    check_count(count, field);
    values.assign(count > 0 ? static_cast<std::size_t>(count) : 0, T{});
    for (auto& value : values) read_value(value, field);
  }

  bool read_line(std::string& line) { return static_cast<bool>(std::getline(in_, line)); }

  // Whether only whitespace is left.
  bool at_end() {
    in_ >> std::ws;
    return in_.eof();
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(std::string(origin_) + ": model_dict.model (libsvm text): " + what);
  }

 private:
  std::istringstream in_;
  std::string_view origin_;
  std::size_t text_size_;
};

}  // namespace

Svm parse_libsvm_text(std::string_view text, std::string_view origin) {
  HeaderReader reader(text, origin);
  Svm svm;

  std::string svm_type, kernel_type;
  bool has_degree = false, has_gamma = false, has_coef0 = false;
  bool has_nr_class = false, has_total_sv = false, has_rho = false;
  int nr_class = 0;
  long total_sv = 0;
  std::vector<double> rho, prob_a, prob_b;
  std::vector<int> labels, nr_sv;

  std::string word;
  bool saw_sv = false;
  while (reader.next_word(word)) {
    if (word == "SV") {
      saw_sv = true;
      break;
    }
    const long pairs = has_nr_class ? static_cast<long>(nr_class) * (nr_class - 1) / 2 : 0;
    if (word == "svm_type") {
      if (!reader.next_word(svm_type)) reader.fail("cannot read svm_type");
      if (svm_type != "c_svc" && svm_type != "nu_svc" && svm_type != "one_class" &&
          svm_type != "epsilon_svr" && svm_type != "nu_svr")
        reader.fail("unknown svm_type '" + svm_type + "'");
    } else if (word == "kernel_type") {
      if (!reader.next_word(kernel_type)) reader.fail("cannot read kernel_type");
      if (kernel_type == "linear") svm.kernel = Kernel::linear;
      else if (kernel_type == "polynomial") svm.kernel = Kernel::poly;
      else if (kernel_type == "rbf") svm.kernel = Kernel::rbf;
      else if (kernel_type == "sigmoid") svm.kernel = Kernel::sigmoid;
      else if (kernel_type == "precomputed")
        reader.fail("kernel_type precomputed is not supported");
      else
        reader.fail("unknown kernel_type '" + kernel_type + "'");
    } else if (word == "degree") {
      reader.read_value(svm.degree, "degree");
      has_degree = true;
    } else if (word == "gamma") {
      reader.read_value(svm.gamma, "gamma");
      has_gamma = true;
    } else if (word == "coef0") {
      reader.read_value(svm.coef0, "coef0");
      has_coef0 = true;
    } else if (word == "nr_class") {
      reader.read_value(nr_class, "nr_class");
      has_nr_class = true;
    } else if (word == "total_sv") {
      int count = 0;
      reader.read_value(count, "total_sv");
      total_sv = count;
      has_total_sv = true;
    } else if (word == "rho") {
      reader.read_values(rho, pairs, "rho");
      has_rho = !rho.empty();
    } else if (word == "label") {
      reader.read_values(labels, has_nr_class ? nr_class : 0, "label");
    } else if (word == "probA") {
      reader.read_values(prob_a, pairs, "probA");
    } else if (word == "probB") {
      reader.read_values(prob_b, pairs, "probB");
    } else if (word == "nr_sv") {
      reader.read_values(nr_sv, has_nr_class ? nr_class : 0, "nr_sv");
    } else {
      reader.fail("unknown text '" + word + "' in the header");
    }
  }

  if (!saw_sv) reader.fail("the header does not end with a line 'SV'");
  if (svm_type.empty()) reader.fail("svm_type is missing");
  if (svm_type != "nu_svr" && svm_type != "epsilon_svr")
    reader.fail("svm_type " + svm_type + " is not supported (VMAF models are nu_svr)");
  if (kernel_type.empty()) reader.fail("kernel_type is missing");
  if (svm.kernel == Kernel::poly && !has_degree) reader.fail("degree is missing");
  if (svm.kernel != Kernel::linear && !has_gamma) reader.fail("gamma is missing");
  if ((svm.kernel == Kernel::poly || svm.kernel == Kernel::sigmoid) && !has_coef0)
    reader.fail("coef0 is missing");
  if (!has_nr_class) reader.fail("nr_class is missing");
  if (nr_class != 2)
    reader.fail("nr_class is " + std::to_string(nr_class) + "; a regression model has 2");
  if (!has_total_sv) reader.fail("total_sv is missing");
  if (total_sv < 0) reader.fail("total_sv is negative");
  reader.check_count(total_sv, "total_sv");
  if (!has_rho) reader.fail("rho is missing (or given before nr_class)");
  svm.rho = rho[0];

  // The support vectors: one line each, "coef index:value ...".
  std::string line;
  svm.coefficients.reserve(static_cast<std::size_t>(total_sv));
  svm.sv_begin.reserve(static_cast<std::size_t>(total_sv) + 1);
  for (long i = 0; i < total_sv; ++i) {
    const std::string where = "support vector " + std::to_string(i + 1) + " of " +
                              std::to_string(total_sv);
    if (!reader.read_line(line)) reader.fail(where + " is missing (total_sv says more)");
    std::istringstream entries(line);
    entries.imbue(std::locale::classic());
    double coefficient = 0.0;
    if (!(entries >> coefficient)) reader.fail(where + ": cannot read its coefficient");
    svm.coefficients.push_back(coefficient);
    svm.sv_begin.push_back(svm.nodes.size());
    SvmNode node;
    while (entries.good() && entries >> node.index) {
      if (entries.get() != ':' || !(entries >> node.value))
        reader.fail(where + ": malformed entry (expected index:value)");
      if (node.index < 1)
        reader.fail(where + ": feature index " + std::to_string(node.index) +
                    " (libsvm indices start at 1)");
      svm.nodes.push_back(node);
    }
    entries.clear();
    entries >> std::ws;
    if (!entries.eof()) reader.fail(where + ": malformed entry (expected index:value)");
  }
  svm.sv_begin.push_back(svm.nodes.size());
  if (!reader.at_end())
    reader.fail("more support vector lines than total_sv (" + std::to_string(total_sv) + ")");
  return svm;
}

}  // namespace vmafexact::model

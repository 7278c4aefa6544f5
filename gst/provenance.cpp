#include "provenance.h"

#include "vmafexact_config.h"

namespace vmafexact::gst {

Provenance Provenance::of_build() {
  return {VMAFEXACT_VERSION, VMAFEXACT_LIBVMAF_VERSION " (master f85a8536)", std::nullopt, {}};
}

std::vector<std::pair<std::string, std::string>> Provenance::as_text() const {
  std::vector<std::pair<std::string, std::string>> text = {
      {"vmafexact-version", vmafexact_version}, {"libvmaf-version", libvmaf_version}};
  if (session) {
    text.emplace_back("models", session->models);
    text.emplace_back("backend", session->backend);
    text.emplace_back("threads", std::to_string(session->threads));
  }
  text.insert(text.end(), extra.begin(), extra.end());
  return text;
}

namespace {

void set_builtin_text_fields(const Provenance& provenance, GstStructure* message) {
  gst_structure_set(message, "vmafexact-version", G_TYPE_STRING,
                    provenance.vmafexact_version.c_str(), "libvmaf-version", G_TYPE_STRING,
                    provenance.libvmaf_version.c_str(), nullptr);
  if (provenance.session)
    gst_structure_set(message, "models", G_TYPE_STRING, provenance.session->models.c_str(),
                      "backend", G_TYPE_STRING, provenance.session->backend.c_str(), nullptr);
}

void set_extra_fields(const Provenance& provenance, GstStructure* message) {
  for (const auto& [key, text] : provenance.extra)
    gst_structure_set(message, key.c_str(), G_TYPE_STRING, text.c_str(), nullptr);
}

}  // namespace

void Provenance::set_text_fields(GstStructure* message) const {
  set_builtin_text_fields(*this, message);
  set_extra_fields(*this, message);
}

void Provenance::set_fields(GstStructure* message) const {
  set_builtin_text_fields(*this, message);
  if (session) gst_structure_set(message, "threads", G_TYPE_UINT, session->threads, nullptr);
  set_extra_fields(*this, message);
}

}  // namespace vmafexact::gst

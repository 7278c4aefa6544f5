#include "provenance.h"

#include "vmafexact_config.h"

namespace vmafexact::gst {

Provenance Provenance::of_build() {
  return {VMAFEXACT_VERSION, VMAFEXACT_LIBVMAF_VERSION " (master f85a8536)", std::nullopt};
}

std::vector<std::pair<std::string, std::string>> Provenance::as_text() const {
  std::vector<std::pair<std::string, std::string>> text = {
      {"vmafexact-version", vmafexact_version}, {"libvmaf-version", libvmaf_version}};
  if (session) {
    text.emplace_back("models", session->models);
    text.emplace_back("backend", session->backend);
    text.emplace_back("threads", std::to_string(session->threads));
  }
  return text;
}

void Provenance::set_text_fields(GstStructure* message) const {
  gst_structure_set(message, "vmafexact-version", G_TYPE_STRING, vmafexact_version.c_str(),
                    "libvmaf-version", G_TYPE_STRING, libvmaf_version.c_str(), nullptr);
  if (session)
    gst_structure_set(message, "models", G_TYPE_STRING, session->models.c_str(), "backend",
                      G_TYPE_STRING, session->backend.c_str(), nullptr);
}

void Provenance::set_fields(GstStructure* message) const {
  set_text_fields(message);
  if (session) gst_structure_set(message, "threads", G_TYPE_UINT, session->threads, nullptr);
}

}  // namespace vmafexact::gst

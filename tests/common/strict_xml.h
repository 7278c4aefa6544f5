// XML read back strictly with libxml2 (no recovery, no network): what a
// consumer of the logs sees. Where libxml2's headers are not found (tests
// built without libxml2-dev), VMAFEXACT_TEST_HAVE_LIBXML2 is not defined and
// the tests that need it skip.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#if __has_include(<libxml/parser.h>)
#include <libxml/parser.h>
#include <libxml/tree.h>
#define VMAFEXACT_TEST_HAVE_LIBXML2 1
#endif

namespace vmafexact::test {

#ifdef VMAFEXACT_TEST_HAVE_LIBXML2
struct XmlDocFree {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using XmlDocPtr = std::unique_ptr<xmlDoc, XmlDocFree>;

// The document, or null when the text is not well-formed XML (in UTF-8).
inline XmlDocPtr parse_strict_xml(std::string_view text) {
  return XmlDocPtr(xmlReadMemory(text.data(), static_cast<int>(text.size()), "log.xml", "UTF-8",
                                 XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
}

// An attribute of the first element named `element` (depth first), as parsed.
inline std::optional<std::string> xml_attribute(const XmlDocPtr& doc, const char* element,
                                                const char* attribute) {
  std::optional<std::string> found;
  const auto visit = [&](auto&& self, xmlNode* node) -> void {
    for (; node && !found; node = node->next) {
      if (node->type == XML_ELEMENT_NODE &&
          std::string_view(reinterpret_cast<const char*>(node->name)) == element) {
        if (xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(attribute))) {
          found = reinterpret_cast<const char*>(value);
          xmlFree(value);
        }
        return;
      }
      self(self, node->children);
    }
  };
  visit(visit, xmlDocGetRootElement(doc.get()));
  return found;
}
#endif

}  // namespace vmafexact::test

// modelDescription.xml as text: parse_model_description, then every variable as a port
// (port_info) and its description (describe). cosima::Error is the expected refusal; anything else
// escaping, a sanitizer report or a leak is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "fmi/common/model_description.hpp"
#include "system/port.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  try {
    const cosima::fmi::ModelDescription md = cosima::fmi::parse_model_description(xml, "fuzz.fmu");
    if (!md.co_simulation && !md.model_exchange) __builtin_trap();  // at least one interface, or refused
    (void)md.may_have_discrete_state();
    for (const cosima::fmi::ScalarVariable& v : md.variables) {
      const cosima::PortInfo info = md.port_info(v);
      const std::string text = cosima::describe(info);
      if (text.empty() || md.find(v.name) < 0) __builtin_trap();  // describe names a kind; find finds every variable
    }
  } catch (const cosima::Error&) {
  }
  return 0;
}

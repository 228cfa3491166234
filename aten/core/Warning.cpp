#include "aten/core/Warning.h"

namespace tl {

static WarningHandler g_handler = nullptr;

void set_warning_handler(WarningHandler handler) { g_handler = handler; }

void warn(const std::string& message) {
  if (g_handler) g_handler(message);
}

}  // namespace tl

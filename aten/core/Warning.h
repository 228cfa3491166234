// Warnings raised by C++ code (PyTorch's TORCH_WARN): handed to a handler that the Python module
// installs (it issues a Python UserWarning); without one they are dropped.
#pragma once
#include <string>

namespace tl {

using WarningHandler = void (*)(const std::string& message);
void set_warning_handler(WarningHandler handler);
// Issues `message` through the handler; the handler may throw (a warning filter set to "error").
void warn(const std::string& message);

}  // namespace tl

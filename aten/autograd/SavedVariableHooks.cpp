#include "aten/autograd/SavedVariableHooks.h"

#include <vector>

#include "aten/core/Exception.h"

namespace tl::autograd {

namespace {

thread_local std::vector<SavedVariableHooksFactory> hook_stack;
thread_local int packing_depth = 0;

}  // namespace

void push_saved_variable_hooks(SavedVariableHooksFactory factory) { hook_stack.push_back(std::move(factory)); }

void pop_saved_variable_hooks() {
  TL_CHECK(!hook_stack.empty(), "pop_saved_tensors_default_hooks: no saved tensor hooks are pushed");
  hook_stack.pop_back();
}

std::unique_ptr<SavedVariableHooks> make_saved_variable_hooks() {
  if (hook_stack.empty() || packing_depth > 0) return nullptr;
  return hook_stack.back()();
}

PackHookGuard::PackHookGuard() { ++packing_depth; }
PackHookGuard::~PackHookGuard() { --packing_depth; }

}  // namespace tl::autograd

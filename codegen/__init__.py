"""torchlite's code generator: native_functions.yaml -> generated/ (see docs/codegen.md)."""

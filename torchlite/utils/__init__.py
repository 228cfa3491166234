"""torchlite.utils: data loading (torchlite.utils.data) and the safetensors format (torchlite.utils.safetensors)."""

// Where a tensor's data lives. `meta` tensors carry shape and dtype but no data:
// every op on them computes only the result's metadata.
#pragma once
#include <cstdint>
#include <string>

namespace tl {

enum class DeviceType : int8_t { CPU = 0, Meta = 1, NumTypes };
constexpr int kNumDeviceTypes = static_cast<int>(DeviceType::NumTypes);

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current/default device of that type

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}
  // Parses "cpu", "meta", "cpu:0"; throws RuntimeError naming the string otherwise.
  static Device parse(const std::string& spec);

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;  // "cpu", "meta", "cpu:0"
};

const char* device_type_name(DeviceType t);

}  // namespace tl

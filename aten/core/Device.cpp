#include "aten/core/Device.h"

#include "aten/core/Exception.h"

namespace tl {

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::Meta: return "meta";
    default: return "unknown";
  }
}

Device Device::parse(const std::string& spec) {
  std::string type = spec;
  int index = -1;
  auto colon = spec.find(':');
  if (colon != std::string::npos) {
    type = spec.substr(0, colon);
    std::string idx = spec.substr(colon + 1);
    bool digits = !idx.empty() && idx.size() < 4;
    for (char c : idx) digits = digits && c >= '0' && c <= '9';
    TL_CHECK(digits, "device: invalid device string '", spec, "'");
    index = std::stoi(idx);
  }
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    if (type == device_type_name(static_cast<DeviceType>(t))) {
      TL_CHECK(index <= 0 || t != static_cast<int>(DeviceType::CPU) || index == 0,
               "device: cpu has only device index 0, got '", spec, "'");
      return Device(static_cast<DeviceType>(t), static_cast<int8_t>(index));
    }
  }
  TL_ERROR("device: expected one of cpu, meta as device type, but got '", spec, "'");
}

std::string Device::str() const {
  std::string s = device_type_name(type);
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace tl
